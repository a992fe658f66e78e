"""Writer zo's bundle builder (kvdoctor.bundle/1): a step-level engine simulation and its scrapes.

Written for the zo-* cases of round 10 (vLLM 0.5.0, 0.6.4.post1, 0.7.0 V0 and 0.7.0 V1).
One request list is run through a step loop that follows the release's scheduler closely enough for
the metrics: V0 without chunked prefill (prefill-only steps, then decode steps), V0 with chunked
prefill (decodes first, then prefill chunks inside max_num_batched_tokens) and V1 (the same token
budget, KV blocks allocated as tokens are computed, recompute preemption when a block is missing).
Every counter, histogram, gauge and stats log line is computed from the recorded steps, the way
the release's LLMEngine._get_stats / StatLogger compute them, so they agree with each other.

Scrapes are rendered by prom.py with the real prometheus_client from the family specs in specs/
(names, HELP, labels, buckets and multiprocess modes as the release declares them).
"""
from __future__ import annotations

import datetime as dt
import json
import math
import os
import random
import subprocess
import sys
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
PY = os.environ.get("ZO_PYTHON", sys.executable)


@dataclass
class Req:
    rid: int
    t_arr: float
    prompt: int
    out: int
    max_tokens: int
    done_prompt: int = 0
    gen: int = 0
    t_sched: float | None = None
    t_first: float | None = None
    t_end: float | None = None
    t_last: float | None = None
    tpot: list = field(default_factory=list)  # (t, latency) per decode step of this request
    blocks: int = 0
    preempted: int = 0

    @property
    def reason(self) -> str:
        return "length" if self.out >= self.max_tokens else "stop"


@dataclass
class Step:
    t0: float
    t1: float
    prompt_tokens: int
    n_decode: int
    n_first: int  # prefills completed in this step (one generated token each)
    running: int
    waiting: int
    blocks_used: int
    preempted: int = 0
    accepted: int = 0
    drafted: int = 0
    emitted: int = 0
    spec_seqs: int = 0


@dataclass
class Engine:
    mode: str  # "v0", "v0chunk", "v1"
    max_num_seqs: int
    budget: int  # max_num_batched_tokens
    num_blocks: int
    block_size: int = 16
    watermark: float = 0.01  # V0 block manager watermark
    step_time: object = None  # (prompt_tokens, n_decode, ctx_tokens, rnd) -> seconds
    spec_k: int = 0
    spec_p: float = 0.0  # probability that the proposer has a draft for a sequence in a step
    spec_accept: object = None  # rnd -> accepted tokens of a k-token draft
    seed: int = 1

    @staticmethod
    def limit(r: Req) -> int:
        return getattr(r, "prompt_ctx", r.prompt)

    def prefilled(self, r: Req) -> bool:
        return r.done_prompt >= self.limit(r) and not hasattr(r, "prompt_ctx")

    def blocks_for(self, tokens: int) -> int:
        return math.ceil(tokens / self.block_size)

    def run(self, reqs: list[Req]) -> list[Step]:
        rnd = random.Random(self.seed)
        pending = deque(sorted(reqs, key=lambda r: r.t_arr))
        waiting: deque[Req] = deque()
        running: list[Req] = []
        steps: list[Step] = []
        used = 0
        wm = int(self.watermark * self.num_blocks) if self.mode != "v1" else 0
        t = pending[0].t_arr if pending else 0.0
        while pending or waiting or running:
            while pending and pending[0].t_arr <= t:
                waiting.append(pending.popleft())
            if not waiting and not running:
                t = pending[0].t_arr
                continue
            prompt_tokens = 0
            firsts: list[Req] = []
            decodes: list[Req] = []
            chunks: list[tuple[Req, int]] = []
            preempted = 0
            if self.mode == "v0":
                # V0 default scheduler: a prefill-only step when a waiting prompt can be admitted.
                admit = []
                budget = self.budget
                while waiting and len(running) + len(admit) < self.max_num_seqs:
                    r = waiting[0]
                    need = self.blocks_for(r.prompt)
                    if self.num_blocks - used - need < wm or r.prompt > budget:
                        break
                    waiting.popleft(); admit.append(r); used += need; r.blocks = need; budget -= r.prompt
                if admit:
                    for r in admit:
                        r.t_sched = r.t_sched if r.t_sched is not None else t
                        chunks.append((r, r.prompt)); prompt_tokens += r.prompt
                    running.extend(admit)
                else:
                    decodes = [r for r in running]
            else:
                budget = self.budget
                # running requests: decodes first (one token each), then unfinished prefills
                for r in list(running):
                    if r in running and self.prefilled(r):
                        if self.mode == "v1":
                            need = self.blocks_for(r.prompt + r.gen + 1) - r.blocks
                            while need > 0 and self.num_blocks - used < need:
                                victim = running[-1]
                                running.remove(victim); used -= victim.blocks; victim.blocks = 0
                                victim.done_prompt = 0; victim.preempted += 1; preempted += 1
                                waiting.appendleft(victim)
                                if victim is r:
                                    break
                            if r not in running:
                                continue
                            if need > 0:
                                used += need; r.blocks += need
                        decodes.append(r); budget -= 1
                for r in running:
                    if not self.prefilled(r) and budget > 0 and r not in decodes:
                        c = min(budget, self.limit(r) - r.done_prompt)
                        if self.mode == "v1":
                            need = self.blocks_for(r.done_prompt + c) - r.blocks
                            if self.num_blocks - used < need:
                                continue
                            used += need; r.blocks += need
                        chunks.append((r, c)); budget -= c; prompt_tokens += c
                while waiting and budget > 0 and len(running) < self.max_num_seqs:
                    r = waiting[0]
                    ctx = r.prompt + (r.gen if self.mode == "v1" else 0)
                    c = min(budget, ctx)
                    if self.mode == "v1":
                        need = self.blocks_for(c)
                        if self.num_blocks - used < need:
                            break
                    else:
                        need = self.blocks_for(r.prompt)
                        if self.num_blocks - used - need < wm:
                            break
                    waiting.popleft(); running.append(r); used += need; r.blocks = need
                    if r.t_sched is None:
                        r.t_sched = t
                    if self.mode == "v1" and r.gen:
                        r.prompt_ctx = ctx  # recompute of prompt + generated tokens
                    chunks.append((r, c)); budget -= c; prompt_tokens += c
            ctx_tokens = sum(r.prompt + r.gen for r in decodes)
            dur = self.step_time(prompt_tokens, len(decodes), ctx_tokens, rnd)
            t1 = t + dur
            acc = drafted = emitted = spec_seqs = 0
            for r, c in chunks:
                limit = self.limit(r)
                r.done_prompt += c
                if r.done_prompt >= limit:
                    r.done_prompt = r.prompt
                    if hasattr(r, "prompt_ctx"):
                        del r.prompt_ctx
                        r.t_last = t1
                        continue
                    r.gen = 1; r.t_first = t1; r.t_last = t1; firsts.append(r)
                    if self.mode == "v0" and r.blocks < self.blocks_for(r.prompt + 1):
                        used += 1; r.blocks += 1
            for r in decodes:
                n = 1
                if self.spec_k:
                    if rnd.random() < self.spec_p:
                        a = self.spec_accept(rnd)
                        acc += a; drafted += self.spec_k; emitted += a + 1; spec_seqs += 1
                        n = 1 + a
                n = min(n, r.out - r.gen)
                r.gen += n
                r.tpot.append((t1, t1 - r.t_last))
                r.t_last = t1
                if self.mode != "v1":
                    need = self.blocks_for(r.prompt + r.gen) - r.blocks
                    if need > 0:
                        used += need; r.blocks += need
            for r in list(running):
                if r.gen >= r.out and r.t_first is not None and self.prefilled(r):
                    r.t_end = t1
                    running.remove(r); used -= r.blocks; r.blocks = 0
            steps.append(Step(t, t1, prompt_tokens, len(decodes), len(firsts), len(running), len(waiting)
                              + sum(1 for p in pending if p.t_arr <= t1), used, preempted, acc, drafted, emitted, spec_seqs))
            t = t1
        return steps


# ------------------------------------------------------------------------------------------ scrapes
def gauges_at(steps: list[Step], t: float, num_blocks: int) -> dict:
    last = None
    for s in steps:
        if s.t1 <= t:
            last = s
        else:
            break
    if last is None:
        return {"run": 0, "wait": 0, "usage": 0.0}
    return {"run": last.running, "wait": last.waiting, "usage": last.blocks_used / num_blocks}


def counters_at(steps: list[Step], t: float) -> dict:
    p = g = pre = 0
    it = []
    for s in steps:
        if s.t1 > t:
            break
        p += s.prompt_tokens
        g += s.n_decode + s.n_first
        pre += s.preempted
        it.append(s.prompt_tokens + s.n_decode + s.n_first)
    return {"prompt": p, "gen": g, "preempt": pre, "iter": it}


def log_points(steps: list[Step], interval: float = 5.0) -> list[dict]:
    """V0 LoggingStatLogger: the first step at least `interval` after the last log prints a line."""
    out = []
    last = steps[0].t0 if steps else 0.0
    pt = gt = 0
    acc = dr = em = 0
    for s in steps:
        pt += s.prompt_tokens
        gt += s.n_decode + s.n_first
        acc += s.accepted; dr += s.drafted; em += s.emitted
        if s.t1 - last >= interval:
            span = s.t1 - last
            out.append({"t": s.t1, "pt": pt / span, "gt": gt / span, "run": s.running, "wait": s.waiting,
                        "usage": s.blocks_used, "acc": acc, "dr": dr, "em": em})
            last = s.t1
            pt = gt = 0
    return out


PROM_DIR = Path(os.environ.get("ZO_PROM_DIR", "/tmp/zo_prom"))


def render(req: dict, prom_version: str | None = None) -> str:
    """prom_version: the prometheus_client release the server ran (unpacked wheel under ZO_PROM_DIR/<ver>,
    e.g. pip download prometheus_client==0.20.0 --no-deps; unzip -d /tmp/zo_prom/0.20.0); the
    installed one is used when that directory is missing."""
    env = dict(os.environ)
    if prom_version and (PROM_DIR / prom_version / "prometheus_client").is_dir():
        env["PYTHONPATH"] = str(PROM_DIR / prom_version)
    p = subprocess.run([PY, str(HERE / "prom.py")], input=json.dumps(req), capture_output=True, text=True, check=True, env=env)
    return p.stdout


def ts(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def write_bundle(out: Path, *, manifest: dict, records: list[dict], server: dict, engine_args: dict,
                 model_config: dict | None, gpu: list[dict], logs: list[tuple[float, str]]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    (out / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    (out / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if model_config is not None:
        (out / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    (out / "gpu.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gpu))
    (out / "logs.txt").write_text("".join(l + "\n" for _, l in sorted(logs, key=lambda x: x[0])))


def models_json(served: str, root: str, mml: int, created: int, with_root: bool = True) -> dict:
    m = {"id": served, "object": "model", "created": created, "owned_by": "vllm"}
    if with_root:
        m["root"] = root
        m["parent"] = None
    if mml is not None:
        m["max_model_len"] = mml
    m["permission"] = [{"id": "modelperm-" + __import__("hashlib").md5((served + str(created)).encode()).hexdigest(),
                        "object": "model_permission", "created": created, "allow_create_engine": False,
                        "allow_sampling": True, "allow_logprobs": True, "allow_search_indices": False,
                        "allow_view": True, "allow_fine_tuning": False, "organization": "*", "group": None,
                        "is_blocking": False}]
    return {"object": "list", "data": [m]}


def process_block(t: float, start: float, rss: int, vms: int, cpu: float, fds: int, gc: tuple) -> str:
    """python/process collectors of the default registry (the API server process)."""
    from prometheus_client.utils import floatToGoString as F
    g0, g1, g2 = gc
    return (
        "# HELP python_gc_objects_collected_total Objects collected during gc\n"
        "# TYPE python_gc_objects_collected_total counter\n"
        f'python_gc_objects_collected_total{{generation="0"}} {F(g0)}\n'
        f'python_gc_objects_collected_total{{generation="1"}} {F(g1)}\n'
        f'python_gc_objects_collected_total{{generation="2"}} {F(g2)}\n'
        "# HELP python_gc_objects_uncollectable_total Uncollectable objects found during GC\n"
        "# TYPE python_gc_objects_uncollectable_total counter\n"
        'python_gc_objects_uncollectable_total{generation="0"} 0.0\n'
        'python_gc_objects_uncollectable_total{generation="1"} 0.0\n'
        'python_gc_objects_uncollectable_total{generation="2"} 0.0\n'
        "# HELP python_gc_collections_total Number of times this generation was collected\n"
        "# TYPE python_gc_collections_total counter\n"
        f'python_gc_collections_total{{generation="0"}} {F(g0 // 180)}\n'
        f'python_gc_collections_total{{generation="1"}} {F(g0 // 2000)}\n'
        f'python_gc_collections_total{{generation="2"}} {F(g0 // 40000)}\n'
        "# HELP python_info Python platform information\n"
        "# TYPE python_info gauge\n"
        'python_info{implementation="CPython",major="3",minor="10",patchlevel="12",version="3.10.12"} 1.0\n'
        "# HELP process_virtual_memory_bytes Virtual memory size in bytes.\n"
        "# TYPE process_virtual_memory_bytes gauge\n"
        f"process_virtual_memory_bytes {F(vms)}\n"
        "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
        "# TYPE process_resident_memory_bytes gauge\n"
        f"process_resident_memory_bytes {F(rss)}\n"
        "# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.\n"
        "# TYPE process_start_time_seconds gauge\n"
        f"process_start_time_seconds {F(start)}\n"
        "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n"
        "# TYPE process_cpu_seconds_total counter\n"
        f"process_cpu_seconds_total {F(round(cpu, 2))}\n"
        "# HELP process_open_fds Number of open file descriptors.\n"
        "# TYPE process_open_fds gauge\n"
        f"process_open_fds {F(fds)}\n"
        "# HELP process_max_fds Maximum number of open file descriptors.\n"
        "# TYPE process_max_fds gauge\n"
        "process_max_fds 1048576.0\n"
    )

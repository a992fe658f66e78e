#!/usr/bin/env python3
"""Build the bundles (and prompt samples) of the e-* cases.

    PYTHONPATH=<worktree> /work/main/.venv/bin/python cases/_tools/e/cases.py [case-id ...]

Each builder states the scenario parameters taken from its case.yaml (`quoted` / `assumed`); the
request-level simulator in engine.py (copied from writer b, extended) turns them into consistent
scrapes, NVML samples and log lines. Deterministic: seeded RNGs, no wall-clock input.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine import Req, Server, Sim, epoch, gpu_devices, models_body, stats_lines, ts, write_bundle  # noqa: E402
from logs import http_started, join  # noqa: E402

CASES = Path(__file__).resolve().parents[2]

VOCAB = (
    "the a of to in and for on with by from at as is are was be this that it its which when then than "
    "system user request response server client value field option default config error warning file "
    "path table column index update record session agent tool result output input message context "
    "function return list string number object array check build test deploy branch commit review "
    "change issue note plan step task status report summary detail reason source target version"
).split()


def words(rng: random.Random, n: int, vocab: list[str] | None = None) -> str:
    v = vocab or VOCAB
    return " ".join(rng.choice(v) for _ in range(n))


def tok_words(tokens: int) -> int:
    """Stand-in: about 1.3 tokens per word of the synthetic texts."""
    return max(1, int(tokens / 1.3))


def write_prompts(cid: str, rows: list[dict]) -> None:
    with (CASES / cid / "prompts.jsonl").open("w") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def rid(rng: random.Random) -> str:
    return f"chatcmpl-{rng.getrandbits(128):032x}"


# ---------------------------------------------------------------- log helpers (V1 start-up)


def v1_refs(version: str) -> dict[str, str]:
    """Source-file references printed in the log lines (illustrative per release line)."""
    if version.startswith("0.9"):
        return {"apiver": "api_server.py:1336", "nondefault": "cli_args.py:325", "arch": "config.py:823", "mml": "config.py:1946",
                "sched": "config.py:2281", "init": "core.py:69", "load": "gpu_model_runner.py:1770", "loaded": "gpu_model_runner.py:1801",
                "avail": "gpu_worker.py:232", "kvsize": "kv_cache_utils.py:716", "conc": "kv_cache_utils.py:720",
                "graphs": "gpu_model_runner.py:2326", "initdone": "core.py:172", "ccinfo": "loggers.py:137", "start": "api_server.py:1390"}
    if version.startswith("0.19") or version.startswith("0.18"):
        return {"apiver": "api_server.py:1947", "nondefault": "utils.py:299", "arch": "model.py:552", "mml": "model.py:1677",
                "sched": "scheduler.py:241", "init": "core.py:101", "load": "gpu_model_runner.py:3489", "loaded": "gpu_model_runner.py:3582",
                "avail": "gpu_worker.py:379", "kvsize": "kv_cache_utils.py:1313", "conc": "kv_cache_utils.py:1317",
                "graphs": "gpu_model_runner.py:4512", "initdone": "core.py:262", "ccinfo": "loggers.py:176", "start": "api_server.py:2024"}
    return {"apiver": "api_server.py:2061", "nondefault": "utils.py:302", "arch": "model.py:561", "mml": "model.py:1702",
            "sched": "scheduler.py:248", "init": "core.py:104", "load": "gpu_model_runner.py:3702", "loaded": "gpu_model_runner.py:3795",
            "avail": "gpu_worker.py:402", "kvsize": "kv_cache_utils.py:1388", "conc": "kv_cache_utils.py:1392",
            "graphs": "gpu_model_runner.py:4807", "initdone": "core.py:271", "ccinfo": "loggers.py:183", "start": "api_server.py:2139"}


def engine_cfg_str(model: str, served: str, *, dtype: str, max_seq_len: int, tp: int, dp: int = 1, quant: str = "None",
                   kv_dtype: str = "auto", prefix: bool = True, extra: str = "") -> str:
    return (
        f"model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, "
        f"revision=None, tokenizer_revision=None, trust_remote_code=False, dtype={dtype}, max_seq_len={max_seq_len}, "
        f"download_dir=None, load_format=auto, tensor_parallel_size={tp}, pipeline_parallel_size=1, data_parallel_size={dp}, "
        f"disable_custom_all_reduce=False, quantization={quant}, enforce_eager=False, kv_cache_dtype={kv_dtype}, "
        f"device_config=cuda, seed=0, served_model_name={served}, enable_prefix_caching={prefix}, "
        f"chunked_prefill_enabled=True{extra}"
    )


def v1_startup(*, t: float, version: str, A: str, E: str, W: str, nondefault: str, arch: str, max_model_len: int,
               engine_cfg: str, weights_gib: float, kv_gib: float, kv_tokens: int, num_gpu_blocks: int, refs: dict[str, str],
               extra_cfg: list[str] | None = None, extra_after_kv: list[str] | None = None, mnbt: int = 8192) -> list[tuple[float, str]]:
    """Start-up lines; A/E/W are the process prefixes with a trailing space (or '' for releases without them)."""
    L: list[tuple[float, str]] = []
    conc = kv_tokens / max_model_len
    L.append((t, f"INFO {ts(t)} [__init__.py:216] Automatically detected platform cuda."))
    L.append((t + 2, f"{A}INFO {ts(t+2)} [{refs['apiver']}] vLLM API server version {version}"))
    L.append((t + 2, f"{A}INFO {ts(t+2)} [{refs['nondefault']}] non-default args: {nondefault}"))
    L.append((t + 9, f"{A}INFO {ts(t+9)} [{refs['arch']}] Resolved architecture: {arch}"))
    L.append((t + 9, f"{A}INFO {ts(t+9)} [{refs['mml']}] Using max model len {max_model_len}"))
    L.append((t + 10, f"{A}INFO {ts(t+10)} [{refs['sched']}] Chunked prefill is enabled with max_num_batched_tokens={mnbt}."))
    for i, line in enumerate(extra_cfg or []):
        L.append((t + 10 + i * 0.01, f"{A}INFO {ts(t+10)} {line}"))
    L.append((t + 18, f"{E}INFO {ts(t+18)} [{refs['init']}] Initializing a V1 LLM engine (v{version}) with config: {engine_cfg}"))
    L.append((t + 25, f"{W}INFO {ts(t+25)} [{refs['load']}] Starting to load model {refs['model_path']}..."))
    L.append((t + 70, f"{W}INFO {ts(t+70)} [{refs['loaded']}] Model loading took {weights_gib:.4f} GiB and 44.310512 seconds"))
    L.append((t + 95, f"{W}INFO {ts(t+95)} [{refs['avail']}] Available KV cache memory: {kv_gib:.2f} GiB"))
    L.append((t + 95.1, f"{E}INFO {ts(t+95)} [{refs['kvsize']}] GPU KV cache size: {kv_tokens:,} tokens"))
    L.append((t + 95.2, f"{E}INFO {ts(t+95)} [{refs['conc']}] Maximum concurrency for {max_model_len:,} tokens per request: {conc:.2f}x"))
    for i, line in enumerate(extra_after_kv or []):
        L.append((t + 95.3 + i * 0.01, line))
    L.append((t + 121, f"{W}INFO {ts(t+121)} [{refs['graphs']}] Graph capturing finished in 24 secs, took 0.55 GiB"))
    L.append((t + 122, f"{E}INFO {ts(t+122)} [{refs['initdone']}] init engine (profile, create kv cache, warmup model) took 52.14 seconds"))
    L.append((t + 123, f"{A}INFO {ts(t+123)} [{refs['ccinfo']}] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {num_gpu_blocks}"))
    L.append((t + 124, f"{A}INFO {ts(t+124)} [{refs['start']}] Starting vLLM API server 0 on http://0.0.0.0:8000"))
    api_pid = int(re.search(r"pid=(\d+)", A).group(1)) if "pid=" in A else 1
    for tt, line in http_started(t + 124.5, api_pid):
        L.append((tt, line if A else line.replace(f"(APIServer pid={api_pid}) ", "")))
    return L


def labels_v1(table: str, **kw: str) -> dict[str, str]:
    base = {
        "_block_size_resolved": "True", "block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False",
        "cpu_kvcache_space_bytes": "None", "cpu_offload_gb": "0", "enable_prefix_caching": "True",
        "gpu_memory_utilization": "0.9", "hash_block_size": "None", "is_attention_free": "False",
        "kv_cache_dtype_skip_layers": "[]", "kv_cache_memory_bytes": "None", "kv_offloading_backend": "native",
        "kv_offloading_size": "None", "kv_sharing_fast_prefill": "False", "mamba_block_size": "None",
        "mamba_cache_dtype": "auto", "mamba_cache_mode": "none", "mamba_page_size_padded": "None",
        "mamba_ssm_cache_dtype": "auto", "num_cpu_blocks": "None", "num_gpu_blocks_override": "None",
        "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4",
        "user_specified_block_size": "False", "user_specified_mamba_block_size": "False",
        "kv_cache_max_concurrency": "None", "kv_cache_size_tokens": "None",
    }
    if table in ("0.9.2", "0.10.0"):
        base["prefix_caching_hash_algo"] = "builtin"
    base.update(kw)
    return base


def merge_expositions(texts: list[str]) -> str:
    """Merge per-engine expositions (same family order) into one /metrics body, as a DP server
    serves it: each family's HELP/TYPE once, then the samples of every engine."""
    fams: list[tuple[str, list[str]]] = []
    index: dict[str, int] = {}
    for text in texts:
        cur = None
        header: list[str] = []
        for ln in text.splitlines():
            if ln.startswith("# HELP "):
                name = ln.split(" ", 3)[2]
                cur = name
                header = [ln]
                continue
            if ln.startswith("# TYPE "):
                header.append(ln)
                if cur not in index:
                    index[cur] = len(fams)
                    fams.append((cur, list(header)))
                continue
            fams[index[cur]][1].append(ln)
    out: list[str] = []
    for _, lines in fams:
        out.extend(lines)
    return "\n".join(out) + "\n"


class MultiSim:
    """Several data-parallel engines behind one API server."""

    def __init__(self, sims: list[Sim]):
        self.sims = sims
        self.srv = sims[0].srv

    def exposition(self, t: float) -> str:
        return merge_expositions([s.exposition(t) for s in self.sims])


def closed_loop(rng: random.Random, *, clients: int, slots: int, t_start: float, t_end: float, make) -> list[Req]:
    """Closed-loop clients against a server with `slots` running slots (max_num_seqs).
    make(i, t_arrive) -> Req with queue_s=0; queueing for a slot is added here."""
    reqs: list[Req] = []
    slot_free = [t_start] * slots
    client_t = [t_start + rng.uniform(0, 3.0) for _ in range(clients)]
    i = 0
    while True:
        c = min(range(clients), key=lambda k: client_t[k])
        ta = client_t[c]
        if ta >= t_end:
            break
        r = make(i, ta)
        s = min(range(slots), key=lambda k: slot_free[k])
        start = max(ta, slot_free[s])
        r.queue_s = round(start - ta + rng.uniform(0.002, 0.01), 4)
        r.finish()
        slot_free[s] = r.t_end
        client_t[c] = r.t_end + rng.uniform(0.05, 0.4)
        reqs.append(r)
        i += 1
    return reqs


# =========================================================================== case 1
CHANDRA_OCR_LAYOUT = (
    "OCR this image to HTML, arranged as layout blocks. Each layout block should be a div with the data-bbox attribute "
    "representing the bounding box of the block in x0 y0 x1 y1 format. Bboxes are normalized 0-1000. The data-label "
    "attribute is the label for the block. Use the following labels: Caption, Footnote, Equation-Block, List-Group, "
    "Page-Header, Page-Footer, Image, Section-Header, Table, Text, Complex-Block, Code-Block, Form, Table-Of-Contents, "
    "Figure. Only use these tags: p, h1, h2, h3, h4, h5, h6, ul, ol, li, table, thead, tbody, tr, th, td, br, b, i, u, "
    "sup, sub, math, pre, code, img, div, span, input, label, caption, figure, figcaption. Guidelines: Inline math: "
    "surround math with <math>...</math> tags; math expressions should be rendered in KaTeX-compatible LaTeX; use "
    "display for block math. Tables: use colspan and rowspan attributes to match the table structure; keep header "
    "rows in thead. Formatting: maintain consistent formatting with the image, including spacing, indentation, "
    "subscripts and superscripts, and special characters. Images: include a description of any images in the alt "
    "attribute of an img tag; do not fill out the src property. Forms: mark checkboxes and radio buttons properly "
    "with input tags and their checked state. Text: join lines together properly into paragraphs using p tags; use "
    "br only when a line break is part of the content; do not hyphenate words that were split across lines. Lists: "
    "use ul or ol with li items and keep the original numbering. Headers and footers: keep page numbers and running "
    "titles in Page-Header and Page-Footer blocks. Reading order: emit the blocks in natural reading order, column by "
    "column for multi-column pages, and never merge blocks from different columns. Use the simplest possible HTML "
    "structure that accurately represents the content of the block. Make sure the text is accurate and easy for a "
    "human to read. Do not add commentary, explanations or markdown fences; output only the HTML of the page."
)


def e_chandra_ocr_image_first() -> None:
    cid = "e-chandra-ocr-image-first"
    rng = random.Random(5101)
    start = epoch(2026, 4, 21, 7, 2, 11)
    t0 = start + 3600.0
    n, interval = 40, 5.0
    t_end = t0 + interval * (n - 1)
    model = "datalab-to/chandra-ocr-2"

    def make(i: int, ta: float) -> Req:
        img = rng.randint(1780, 2140)  # page image tokens (1024-px long side)
        plen = 3 + img + 2 + 505 + 14  # '<|im_start|>user\n' + image + text prompt + template tail
        gen = max(300, int(rng.gauss(1510, 380)))
        return Req(rid=rid(rng), t_arrive=ta, prompt_len=plen, hit=0, gen_len=gen, max_tokens=8192,
                   queue_s=0.0, prefill_s=round(0.06 + plen / 6800.0, 4), itl_s=round(rng.uniform(0.0188, 0.0202), 4),
                   finished_reason="stop", mm_items=1, mm_hit_items=1 if rng.random() < 0.149 else 0)

    reqs = closed_loop(rng, clients=9, slots=8, t_start=start + 150, t_end=t_end, make=make)
    labels = labels_v1("0.18.0", gpu_memory_utilization="0.9", num_gpu_blocks="4781")
    srv = Server("0.19.1", "0.18.0", model, 16384, 16, 4781, labels, start)
    srv.extra_gauges["_loggers_ref"] = "loggers.py:257"
    sim = Sim(srv, reqs)
    A, E, W = "(APIServer pid=1) ", "(EngineCore_DP0 pid=263) ", "(EngineCore_DP0 pid=263) "
    refs = v1_refs("0.19.1") | {"model_path": model}
    nondefault = ("{'model_tag': 'datalab-to/chandra-ocr-2', 'model': 'datalab-to/chandra-ocr-2', 'max_model_len': 16384, "
                  "'enable_prefix_caching': True, 'max_num_seqs': 8, 'limit_mm_per_prompt': {'image': 1}}")
    logs = v1_startup(t=start, version="0.19.1", A=A, E=E, W=W, nondefault=nondefault,
                      arch="Qwen3VLForConditionalGeneration", max_model_len=16384,
                      engine_cfg=engine_cfg_str(model, model, dtype="torch.bfloat16", max_seq_len=16384, tp=1),
                      weights_gib=8.5604, kv_gib=10.50, kv_tokens=76496, num_gpu_blocks=4781, refs=refs)
    logs += stats_lines(sim, start + 160, t_end, "v1mm", A)
    gpus = gpu_devices("NVIDIA GeForce RTX 3090", 24576, [22874], [(263, "VLLM::EngineCore", 22306)])
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=interval, endpoint="http://10.20.0.14:8000",
        notes="OCR batch worker: chandra OCR 2 on one RTX 3090 (vllm serve datalab-to/chandra-ocr-2 --enable-prefix-caching), "
              "8 concurrent page requests from the chandra CLI, every page sent with the same layout-OCR instruction; "
              "prefix cache hit rate reads 0.0% across thousands of pages; /metrics every 5 s, NVML, server log; "
              "a sample of the request bodies (images shortened) in prompts.jsonl",
        version_body={"version": "0.19.1"},
        models_body=models_body(model, model, 16384, int(start + 125)),
        argv=["vllm", "serve", model, "--enable-prefix-caching", "--max-model-len", "16384", "--max-num-seqs", "8",
              "--limit-mm-per-prompt", '{"image": 1}'],
        args={"enable-prefix-caching": True, "max-model-len": 16384, "max-num-seqs": 8, "limit-mm-per-prompt": '{"image": 1}'},
        model_config=None, gpus=gpus, logs=join(logs),
    )
    prng = random.Random(5102)
    rows = []
    for k in range(16):
        fake = hashlib.sha256(f"page-{k}".encode()).digest() * 6
        url = "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + fake).decode()
        rows.append({"model": model, "messages": [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": url}},
            {"type": "text", "text": CHANDRA_OCR_LAYOUT},
        ]}], "max_tokens": 8192, "temperature": 0.0})
    _ = prng
    write_prompts(cid, rows)


# =========================================================================== case 2
GEMMA4_31B_CONFIG = {
    "architectures": ["Gemma4ForConditionalGeneration"],
    "model_type": "gemma4",
    "torch_dtype": "bfloat16",
    "quantization_config": {"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups": {
        "group_0": {"weights": {"num_bits": 4, "type": "int", "symmetric": True, "group_size": 32, "strategy": "group"},
                    "targets": ["Linear"]}}, "ignore": ["lm_head", "re:.*vision_tower.*"]},
    "text_config": {
        "model_type": "gemma4_text",
        "hidden_size": 5376,
        "intermediate_size": 21504,
        "num_hidden_layers": 60,
        "num_attention_heads": 32,
        "num_key_value_heads": 16,
        "head_dim": 128,
        "sliding_window": 1024,
        "layer_types": (["sliding_attention"] * 5 + ["full_attention"]) * 10,
        "max_position_embeddings": 131072,
        "rope_theta": 1000000.0,
        "vocab_size": 262144,
        "rms_norm_eps": 1e-06,
        "final_logit_softcapping": 30.0,
    },
    "vision_config": {"model_type": "gemma4_vision"},
    "transformers_version": "5.8.1",
}


def e_gemma4_swa_round_robin_zero_hits() -> None:
    cid = "e-gemma4-swa-round-robin-zero-hits"
    rng = random.Random(5201)
    start = epoch(2026, 7, 12, 13, 40, 5)
    t0 = start + 900.0
    n, interval = 36, 5.0
    t_end = t0 + interval * (n - 1)
    model = "google/gemma-4-31B-it-qat-w4a16-ct"
    seats = 4
    base_len = [9870, 10240, 10610, 9460]  # each seat's distinct context (tokens)
    grown = list(base_len)
    reqs: list[Req] = []
    seat_turns: list[list[tuple[int, int]]] = [[] for _ in range(seats)]
    t = start + 300.0
    turn = 0
    while t < t_end + 30:
        s = turn % seats
        plen = grown[s] + rng.randint(40, 90)
        gen = rng.randint(140, 260)
        prefill = round(plen / 2850.0, 3)  # cold prefill ~7.5 s per 21k tokens
        itl = round(rng.uniform(0.0265, 0.0285), 4)
        reqs.append(Req(rid=rid(rng), t_arrive=round(t, 3), prompt_len=plen, hit=0, gen_len=gen, max_tokens=512,
                        queue_s=0.004, prefill_s=prefill, itl_s=itl, finished_reason="stop"))
        seat_turns[s].append((plen, gen))
        grown[s] = plen + gen
        t += 0.004 + prefill + (gen - 1) * itl + rng.uniform(0.4, 0.9)
        turn += 1
    labels = labels_v1("0.24.0", gpu_memory_utilization="0.93", cache_dtype="fp8", num_gpu_blocks="57516",
                       sliding_window="1024", kv_cache_size_tokens="153374", kv_cache_max_concurrency="2.34")
    srv = Server("0.24.0", "0.24.0", model, 65536, 16, 57516, labels, start, pool_groups=6)
    srv.extra_gauges["_loggers_ref"] = "loggers.py:263"
    sim = Sim(srv, reqs)
    A, E, W = "(APIServer pid=1) ", "(EngineCore pid=214) ", "(EngineCore pid=214) "
    refs = v1_refs("0.24.0") | {"model_path": model}
    nondefault = ("{'model_tag': 'google/gemma-4-31B-it-qat-w4a16-ct', 'tool_call_parser': 'gemma4', 'enable_auto_tool_choice': True, "
                  "'model': 'google/gemma-4-31B-it-qat-w4a16-ct', 'max_model_len': 65536, 'gpu_memory_utilization': 0.93, "
                  "'kv_cache_dtype': 'fp8', 'max_num_seqs': 8}")
    logs = v1_startup(t=start, version="0.24.0", A=A, E=E, W=W, nondefault=nondefault,
                      arch="Gemma4ForConditionalGeneration", max_model_len=65536,
                      engine_cfg=engine_cfg_str(model, model, dtype="torch.bfloat16", max_seq_len=65536, tp=1,
                                                quant="compressed-tensors", kv_dtype="fp8"),
                      weights_gib=18.6930, kv_gib=7.03, kv_tokens=153374, num_gpu_blocks=57516, refs=refs)
    logs += stats_lines(sim, start + 310, t_end, "v1", A)
    gpus = gpu_devices("NVIDIA GeForce RTX 5090", 32607, [31412], [(214, "VLLM::EngineCore", 30862)])
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=interval, endpoint="http://127.0.0.1:8000",
        notes="workstation agent box: Gemma-4-31B QAT w4a16 on one RTX 5090, four independent chat sessions (seats) taking turns; "
              "every turn re-sends the seat's whole conversation plus a short new message, yet every turn is prefilled from "
              "scratch; /metrics every 5 s, NVML, server log; the seats' last turns are in prompts.jsonl",
        version_body={"version": "0.24.0"},
        models_body=models_body(model, model, 65536, int(start + 125)),
        argv=["vllm", "serve", model, "--tool-call-parser", "gemma4", "--enable-auto-tool-choice", "--kv-cache-dtype", "fp8",
              "--max-model-len", "65536", "--max-num-seqs", "8", "--gpu-memory-utilization", "0.93"],
        args={"tool-call-parser": "gemma4", "enable-auto-tool-choice": True, "kv-cache-dtype": "fp8", "max-model-len": 65536,
              "max-num-seqs": 8, "gpu-memory-utilization": 0.93},
        model_config=GEMMA4_31B_CONFIG, gpus=gpus, logs=join(logs),
    )
    # prompts: the last two turns of every seat in the window (turn k+1 = turn k + reply + new message)
    prng = random.Random(5202)
    topics = ["a Rust web service refactor", "a quarterly sales analysis", "a Kubernetes upgrade runbook", "a novel chapter edit"]
    rows = []
    for s in range(seats):
        (p1, g1), (p2, _g2) = seat_turns[s][-2], seat_turns[s][-1]
        sysmsg = f"You are a helpful assistant working with the user on {topics[s]}. Keep answers precise."
        ctx = words(prng, tok_words(p1 - 60))
        m1 = [{"role": "system", "content": sysmsg}, {"role": "user", "content": ctx}]
        rows.append({"model": model, "messages": [dict(m) for m in m1], "max_tokens": 512})
        m2 = m1 + [{"role": "assistant", "content": words(prng, tok_words(g1))},
                   {"role": "user", "content": words(prng, tok_words(max(20, p2 - p1 - g1)))}]
        rows.append({"model": model, "messages": [dict(m) for m in m2], "max_tokens": 512})
    write_prompts(cid, rows)


# =========================================================================== case 3
def e_openclaw_daily_date_line() -> None:
    cid = "e-openclaw-daily-date-line"
    rng = random.Random(5301)
    start = epoch(2026, 9, 10, 8, 12, 40)  # server up since 4 days (91.5 h of uptime in the source)
    t0 = epoch(2026, 9, 14, 9, 0, 0)
    n, interval = 60, 15.0
    t_end = t0 + interval * (n - 1)
    model = "Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"
    static_prefix = 8960  # tokens of the system prompt + tools before the Temporal Context section (block aligned)
    reqs: list[Req] = []
    # The days before: the same agent session(s); the first turn of each day re-prefills everything after the
    # date line; a context compaction (summary replaces the history) also starts a new prefix.
    import datetime as _dt
    t = start + 600.0
    ctx = 30000
    new_prefix = True
    prev_day = None
    while t < t0 - 36000:  # up to 23:00 the day before
        day_ = _dt.datetime.fromtimestamp(t, _dt.timezone.utc).date()
        gen = rng.randint(250, 700)
        plen = ctx
        hit = static_prefix if (new_prefix or day_ != prev_day) else ((plen - 600) // 16) * 16
        miss = plen - hit
        prefill = round(0.3 + miss / 2400.0 if miss < 20000 else miss / 700.0, 3)
        reqs.append(Req(rid=rid(rng), t_arrive=round(t, 3), prompt_len=plen, hit=hit, gen_len=gen, max_tokens=8192,
                        queue_s=0.006, prefill_s=prefill, itl_s=round(rng.uniform(0.042, 0.05), 4), finished_reason="stop"))
        new_prefix = False
        prev_day = day_
        ctx = ctx + gen + rng.randint(300, 2600)
        if ctx >= 178000:  # compaction
            ctx, new_prefix = 31000, True
        t += rng.expovariate(1 / 505.0) + 60
    # This morning: the first turn of the day re-prefills everything after the date line.
    day = [(t0 + 70.0, 177420, static_prefix), (t0 + 380.0, 178150, None), (t0 + 590.0, 178905, None), (t0 + 785.0, 179610, None)]
    prev_total = None
    for ta, plen, hit in day:
        if hit is None:
            hit = (prev_total // 16) * 16
        miss = plen - hit
        gen = rng.randint(330, 520)
        prefill = round(253.0 if miss > 100000 else 0.3 + miss / 2400.0, 3)
        reqs.append(Req(rid=rid(rng), t_arrive=round(ta, 3), prompt_len=plen, hit=hit, gen_len=gen, max_tokens=8192,
                        queue_s=0.006, prefill_s=prefill, itl_s=round(rng.uniform(0.047, 0.051), 4), finished_reason="stop"))
        prev_total = plen + gen
    labels = labels_v1("0.24.0", gpu_memory_utilization="0.92", cache_dtype="fp8", num_gpu_blocks="15730",
                       kv_cache_size_tokens="251680", kv_cache_max_concurrency="0.96")
    srv = Server("0.28.0", "0.24.0", model, 262144, 16, 15730, labels, start)
    srv.extra_gauges["_loggers_ref"] = "loggers.py:271"
    sim = Sim(srv, reqs)
    A = "(APIServer pid=1) "
    logs = stats_lines(sim, t0 - 3600 + 10, t_end, "v1", A)
    # a periodic stats line is only printed while something ran in the interval (idle intervals are skipped)
    logs = [(tt, ln) for tt, ln in logs if "Running: 0 reqs, Waiting: 0 reqs" not in ln or "Avg prompt throughput: 0.0" not in ln]
    for r in reqs:
        if r.t_arrive >= t0 - 3600:
            logs.append((r.t_arrive + 0.002, f'(APIServer pid=1) INFO:     172.18.0.5:{40000 + int(r.t_arrive) % 20000} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    gpus = gpu_devices("NVIDIA L40S", 46068, [43961], [(188, "VLLM::EngineCore", 43420)])
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=interval, endpoint="http://10.0.0.42:8000",
        notes="self-hosted agent backend (OpenClaw gateway -> vLLM, Qwen3-Coder-30B-A3B FP8 on one L40S); the user reports that "
              "the first message of the morning takes more than four minutes, later ones under a second; capture 09:00-09:15 "
              "UTC (the user's timezone), /metrics every 15 s, NVML, the last hour of the server log; the gateway's request "
              "bodies of the last turn of yesterday and the first turn of today in prompts.jsonl",
        version_body={"version": "0.28.0"},
        models_body=models_body("qwen3-coder", model, 262144, int(start + 125)),
        argv=["vllm", "serve", model, "--served-model-name", "qwen3-coder", "--max-model-len", "262144", "--kv-cache-dtype", "fp8",
              "--gpu-memory-utilization", "0.92", "--enable-auto-tool-choice", "--tool-call-parser", "qwen3_coder"],
        args={"served-model-name": "qwen3-coder", "max-model-len": 262144, "kv-cache-dtype": "fp8", "gpu-memory-utilization": 0.92,
              "enable-auto-tool-choice": True, "tool-call-parser": "qwen3_coder"},
        model_config=QWEN3_CODER_30B_CONFIG, gpus=gpus, logs=join(logs),
    )
    # prompts: yesterday's last turn and today's first turn of the same session
    prng = random.Random(5302)
    static_sys = ("You are OpenClaw, a personal agent that runs tools on the user's machines and chat channels.\n"
                  + words(prng, tok_words(static_prefix - 400)) + "\n")
    tools = [{"type": "function", "function": {"name": nm, "description": words(prng, 30),
                                                "parameters": {"type": "object", "properties": {"arg": {"type": "string"}}}}}
             for nm in ("shell_exec", "read_file", "write_file", "web_fetch", "send_message", "memory_search")]
    history: list[dict] = []
    while sum(len(m["content"].split()) for m in history) < tok_words(177420 - static_prefix - 900):
        history.append({"role": "user", "content": words(prng, prng.randint(30, 400))})
        history.append({"role": "assistant", "content": words(prng, prng.randint(200, 1400))})

    def sysmsg(date: str) -> dict:
        return {"role": "system", "content": static_sys + "## Temporal Context\nCurrent date: " + date + "\nTimezone: UTC\n"}

    y = [sysmsg("2026-09-13")] + history[:-2]
    tdy = [sysmsg("2026-09-14")] + history
    write_prompts(cid, [
        {"model": "qwen3-coder", "messages": y, "tools": tools, "max_tokens": 8192},
        {"model": "qwen3-coder", "messages": tdy, "tools": tools, "max_tokens": 8192},
    ])


QWEN3_CODER_30B_CONFIG = {
    "architectures": ["Qwen3MoeForCausalLM"],
    "model_type": "qwen3_moe",
    "hidden_size": 2048,
    "intermediate_size": 5472,
    "moe_intermediate_size": 768,
    "num_hidden_layers": 48,
    "num_attention_heads": 32,
    "num_key_value_heads": 4,
    "head_dim": 128,
    "num_experts": 128,
    "num_experts_per_tok": 8,
    "max_position_embeddings": 262144,
    "rope_theta": 10000000,
    "vocab_size": 151936,
    "torch_dtype": "bfloat16",
    "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic", "weight_block_size": [128, 128]},
    "tie_word_embeddings": False,
    "transformers_version": "4.51.0",
}


# =========================================================================== case 4
def e_dsv4_dp4_tiebreak_scatter() -> None:
    cid = "e-dsv4-dp4-tiebreak-scatter"
    rng = random.Random(5401)
    start = epoch(2026, 8, 14, 16, 0, 0)
    t0 = start + 2400.0
    n, interval = 30, 8.0
    t_end = t0 + interval * (n - 1)
    model = "deepseek-ai/DeepSeek-V4-Flash-0731"
    block = 256
    dp = 4
    shared_sys = 6144  # system prompt + tools common to every session (block aligned)
    # sessions: multi-turn, each turn re-sends the whole history plus a tool result / new message
    n_sessions = 6
    sess_len = [0] * n_sessions
    sess_cached: list[dict[int, int]] = [dict() for _ in range(n_sessions)]  # engine -> cached prefix tokens of that session
    sess_t = [start + 200 + rng.uniform(0, 60) for _ in range(n_sessions)]
    rot = 0
    per_engine: list[list[Req]] = [[] for _ in range(dp)]
    designed = []
    while True:
        s = min(range(n_sessions), key=lambda k: sess_t[k])
        ta = sess_t[s]
        if ta > t_end + 20:
            break
        if sess_len[s] == 0 or sess_len[s] > 52000:  # a new session starts (previous one finished)
            sess_len[s] = shared_sys + rng.randint(9000, 16000)
            sess_cached[s] = {}
            new_part = sess_len[s]
        else:
            new_part = rng.randint(3500, 7500)
            sess_len[s] += new_part
        plen = sess_len[s]
        e = rot % dp  # tied decision at low load: the rotating scan start picks the engine
        rot += 1
        cached = max(shared_sys, sess_cached[s].get(e, 0))
        hit = min((cached // block) * block, ((plen - 1) // block) * block)
        designed.append((plen, plen - new_part))
        gen = rng.randint(220, 650)
        miss = plen - hit
        prefill = round(0.12 + miss / 11500.0, 3)
        itl = round(rng.uniform(0.021, 0.025), 4)
        r = Req(rid=rid(rng), t_arrive=round(ta, 3), prompt_len=plen, hit=hit, gen_len=gen, max_tokens=4096, queue_s=0.005,
                prefill_s=prefill, itl_s=itl, finished_reason="stop")
        r.finish()
        per_engine[e].append(r)
        sess_cached[s][e] = plen + gen
        sess_len[s] = plen + gen
        sess_t[s] = r.t_end + rng.uniform(1.5, 6.0)
    sims = []
    for e in range(dp):
        labels = labels_v1("0.24.0", block_size="256", cache_dtype="fp8", num_gpu_blocks="3716", gpu_memory_utilization="0.9",
                           user_specified_block_size="True", kv_cache_size_tokens="951296", kv_cache_max_concurrency="0.95")
        srv = Server("0.28.1.dev212+gac7509e2b", "0.24.0", model, 1000000, 256, 3716, labels, start, engine_id=str(e))
        srv.extra_gauges["_loggers_ref"] = "loggers.py:271"
        sims.append(Sim(srv, per_engine[e]))
    ms = MultiSim(sims)
    A = "(APIServer_0 pid=1) "
    logs: list[tuple[float, str]] = []
    for sim in sims:
        logs += stats_lines(sim, t0 - 300, t_end, "v1", A)
    gpus = gpu_devices("NVIDIA H100 80GB HBM3", 81559, [76210] * 8,
                       [(300 + i, f"VLLM::DP{i // 2}_TP{i % 2}", 75660) for i in range(8)])
    write_bundle(
        CASES / cid / "bundle", ms, t0=t0, n=n, interval=interval, endpoint="http://10.8.1.5:8000",
        notes="one 8xH100 node serving DeepSeek-V4-Flash-0731 with internal data parallelism (4 engines, expert parallel, "
              "4 API servers); multi-turn agent sessions whose turns re-send the whole history; after upgrading to a nightly "
              "the prefix hit rate fell from the ~80% the traffic was sized for and TTFT rose; /metrics every 6 s, NVML, "
              "server log; two sessions' consecutive turns in prompts.jsonl",
        version_body={"version": "0.28.1.dev212+gac7509e2b"},
        models_body=models_body(model, model, 1000000, int(start + 125)),
        argv=["vllm", "serve", model, "--data-parallel-size", "4", "--enable-expert-parallel", "--api-server-count", "4",
              "--kv-cache-dtype", "fp8", "--max-model-len", "1000000", "--block-size", "256"],
        args={"data-parallel-size": 4, "enable-expert-parallel": True, "api-server-count": 4, "kv-cache-dtype": "fp8",
              "max-model-len": 1000000, "block-size": 256},
        model_config=None, gpus=gpus, logs=join(logs),
    )
    ds = sum(b for _, b in designed) / sum(a for a, _ in designed)
    print(f"  {cid}: designed reuse of the traffic {ds:.4f}")
    # prompts: two sessions, three consecutive turns each
    prng = random.Random(5402)
    sysmsg = "You are a coding agent. Use the tools to inspect and change the repository, then report.\n" + words(prng, tok_words(shared_sys - 300))
    rows = []
    for s in range(2):
        msgs = [{"role": "system", "content": sysmsg}, {"role": "user", "content": words(prng, tok_words(12000))}]
        for k in range(4):
            msgs.append({"role": "assistant", "content": words(prng, 300)})
            msgs.append({"role": "tool", "content": words(prng, tok_words(prng.randint(3500, 7000)))})
            if k >= 1:
                rows.append({"model": model, "messages": [dict(m) for m in msgs], "max_tokens": 4096})
    write_prompts(cid, rows)


# =========================================================================== case 5
def e_lmcache_gpu_already_hits_healthy() -> None:
    cid = "e-lmcache-gpu-already-hits-healthy"
    rng = random.Random(5501)
    start = epoch(2025, 7, 21, 13, 31, 2)
    t0 = start + 900.0
    n, interval = 36, 5.0
    t_end = t0 + interval * (n - 1)
    model = "Qwen-Qwen2.5-72B-Instruct"
    docs = [14771, 13982, 15310]
    reqs: list[Req] = []
    lm_lines: list[tuple[float, str]] = []
    W0, W1 = "(VllmWorker rank=0 pid=3832930) ", "(VllmWorker rank=1 pid=3832931) "
    t = t0 + 12.0
    for d, plen in enumerate(docs):
        for warm in (False, True):
            hit = ((plen - 1) // 16) * 16 if warm else 0
            prefill = 0.21 if warm else 5.43
            gen = rng.randint(52, 78)
            r = Req(rid=rid(rng), t_arrive=round(t, 3), prompt_len=plen, hit=hit, gen_len=gen, max_tokens=100, queue_s=0.004,
                    prefill_s=prefill, itl_s=round(rng.uniform(0.0285, 0.031), 4), finished_reason="stop")
            r.finish()
            reqs.append(r)
            need = plen - hit if warm else 0
            lmhit = plen if warm else 0
            ttl = r.t_arrive + 0.01
            lm_lines.append((ttl, f"[{_lmts(ttl)}] LMCache INFO: Reqid: {r.rid}, Total tokens {plen}, LMCache hit tokens: {lmhit}, need to load: {need} (vllm_v1_adapter.py:818:lmcache.integration.vllm.vllm_v1_adapter)"))
            if warm:
                ttl2 = ttl + 0.007
                for W in (W1, W0):
                    lm_lines.append((ttl2, f"{W}[{_lmts(ttl2)}] LMCache INFO: Retrieved {plen % 256} out of {plen % 256} out of total {plen} tokens (cache_engine.py:510:lmcache.v1.cache_engine)"))
            else:
                ttl2 = r.t_first + 0.05
                for W in (W1, W0):
                    lm_lines.append((ttl2, f"{W}[{_lmts(ttl2)}] LMCache INFO: Storing KV cache for {plen} out of {plen} tokens (skip_leading_tokens=0) for request {r.rid} (vllm_v1_adapter.py:1116:lmcache.integration.vllm.vllm_v1_adapter)"))
            t = r.t_end + rng.uniform(0.8, 1.6)
        t += rng.uniform(25, 40)
    labels = labels_v1("0.9.2", gpu_memory_utilization="0.9", num_gpu_blocks="13550")
    srv = Server("0.9.2", "0.9.2", model, 32768, 16, 13550, labels, start)
    srv.extra_gauges["_loggers_ref"] = "loggers.py:118"
    sim = Sim(srv, reqs)
    refs = v1_refs("0.9.2") | {"model_path": "/root/Qwen-Qwen2.5-72B-Instruct"}
    nondefault = ("{'model_tag': '/root/Qwen-Qwen2.5-72B-Instruct', 'model': '/root/Qwen-Qwen2.5-72B-Instruct', "
                  "'served_model_name': ['Qwen-Qwen2.5-72B-Instruct'], 'quantization': 'fp8', 'tensor_parallel_size': 2, "
                  "'gpu_memory_utilization': 0.9, 'max_num_seqs': 128, "
                  "'kv_transfer_config': KVTransferConfig(kv_connector='LMCacheConnectorV1', kv_role='kv_both')}")
    logs = v1_startup(t=start, version="0.9.2", A="", E="", W=W0, nondefault=nondefault, arch="Qwen2ForCausalLM",
                      max_model_len=32768,
                      engine_cfg=engine_cfg_str("/root/Qwen-Qwen2.5-72B-Instruct", model, dtype="torch.bfloat16", max_seq_len=32768,
                                                tp=2, quant="fp8"),
                      weights_gib=35.7126, kv_gib=33.08, kv_tokens=216800, num_gpu_blocks=13550, refs=refs,
                      extra_after_kv=[f"[{_lmts(start + 95.3)}] LMCache INFO: LMCache initialized for role KVConnectorRole.SCHEDULER with version 0.3.2, local_cpu: True, max_local_cpu_size: 60.0 GB, chunk_size: 256 (vllm_v1_adapter.py:395:lmcache.integration.vllm.vllm_v1_adapter)"])
    logs += stats_lines(sim, t0 - 60, t_end, "v1", "")
    logs = [(tt, ln) for tt, ln in logs if "Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 0 reqs" not in ln]
    logs += lm_lines
    for r in reqs:
        logs.append((r.t_arrive + 0.002, f'INFO:     127.0.0.1:{41000 + int(r.t_arrive) % 9000} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    gpus = gpu_devices("NVIDIA H100 80GB HBM3", 81559, [76190, 76190], [(3832930, "python3", 75650), (3832931, "python3", 75650)])
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=interval, endpoint="http://10.2.6.7:8000",
        notes="evaluation box: Qwen2.5-72B-Instruct fp8, TP2 on 2x H100, vLLM with the LMCache connector (CPU offload, 60 GB); "
              "the user runs LMCache's query-twice.py (one long document, asked twice) for three documents and says LMCache "
              "does not help, warm TTFT is no better than without LMCache; /metrics every 5 s, NVML, server log with LMCache lines; "
              "the script's requests in prompts.jsonl",
        version_body={"version": "0.9.2"},
        models_body=models_body(model, "/root/Qwen-Qwen2.5-72B-Instruct", 32768, int(start + 125)),
        argv=["vllm", "serve", "/root/Qwen-Qwen2.5-72B-Instruct", "--served-model-name", model, "--tensor-parallel-size", "2",
              "--max-num-seqs", "128", "--gpu-memory-utilization", "0.9", "--quantization", "fp8",
              "--kv-transfer-config", '{"kv_connector":"LMCacheConnectorV1", "kv_role":"kv_both"}'],
        args={"served-model-name": model, "tensor-parallel-size": 2, "max-num-seqs": 128, "gpu-memory-utilization": 0.9,
              "quantization": "fp8", "kv-transfer-config": '{"kv_connector":"LMCacheConnectorV1", "kv_role":"kv_both"}'},
        model_config=QWEN25_72B_CONFIG, gpus=gpus, logs=join(logs),
    )
    prng = random.Random(5502)
    rows = []
    for d, plen in enumerate(docs):
        doc = words(prng, tok_words(plen - 40))
        body = {"model": model, "messages": [{"role": "user", "content": "I'm working on some shell scripts. Here is the manual page:\n"
                                              + doc + "\nBriefly describe what this program is."}], "max_tokens": 100, "temperature": 0.0}
        rows.append(body)
        rows.append(json.loads(json.dumps(body)))
    write_prompts(cid, rows)


def _lmts(t: float) -> str:
    import datetime as _dt
    d = _dt.datetime.fromtimestamp(t, _dt.timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S,") + f"{int((t % 1) * 1000):03d}"


QWEN25_72B_CONFIG = {
    "architectures": ["Qwen2ForCausalLM"],
    "model_type": "qwen2",
    "hidden_size": 8192,
    "intermediate_size": 29568,
    "num_hidden_layers": 80,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "max_position_embeddings": 32768,
    "max_window_layers": 70,
    "sliding_window": 131072,
    "use_sliding_window": False,
    "rope_theta": 1000000.0,
    "rms_norm_eps": 1e-06,
    "vocab_size": 152064,
    "torch_dtype": "bfloat16",
    "tie_word_embeddings": False,
    "transformers_version": "4.43.1",
}


# =========================================================================== case 6
def e_1cat_three_rounds_21pct() -> None:
    cid = "e-1cat-three-rounds-21pct"
    rng = random.Random(5601)
    start = epoch(2026, 6, 29, 1, 10, 0)
    model = "Qwen/Qwen3-14B-AWQ"
    prompts = [35520, 35880, 35260, 36110, 35740]  # 5 documents of ~50,000 Chinese characters
    reqs: list[Req] = []
    t = start + 400.0
    frac = 0.3195  # rounds 2 and 3: reused part of each prompt (block aligned below)
    last_end = t
    for rnd in range(3):
        # 5 concurrent requests; prefill is shared between them (compute-bound): serialise prefills
        busy_until = t
        ends = []
        for i, plen in enumerate(prompts):
            hit = 0 if rnd == 0 else (int(plen * frac) // 16) * 16
            miss = plen - hit
            prefill = round(miss / 2050.0, 3)
            ta = round(t + i * 0.03, 3)
            q = round(max(0.0, busy_until - ta), 3)
            gen = rng.randint(900, 1500)
            r = Req(rid=rid(rng), t_arrive=ta, prompt_len=plen, hit=hit, gen_len=gen, max_tokens=2048, queue_s=q,
                    prefill_s=prefill, itl_s=round(rng.uniform(0.061, 0.068), 4), finished_reason="stop")
            r.finish()
            busy_until = r.t_first
            ends.append(r.t_end)
            reqs.append(r)
        t = max(ends) + rng.uniform(2.0, 5.0)
        last_end = max(ends)
    t0 = last_end + 95.0
    n, interval = 24, 10.0
    t_end = t0 + interval * (n - 1)
    labels = labels_v1("0.18.0", gpu_memory_utilization="0.9", num_gpu_blocks="16640", cache_dtype="auto")
    srv = Server("0.19.1", "0.18.0", model, 40960, 16, 16640, labels, start)
    srv.extra_gauges["_loggers_ref"] = "loggers.py:257"
    sim = Sim(srv, reqs)
    A = "(APIServer pid=1) "
    logs = stats_lines(sim, last_end - 300, last_end + 20, "v1", A)
    gpus = gpu_devices("Tesla V100-SXM2-32GB", 32768, [29874, 29874], [(412, "VLLM::Worker_TP0", 29450), (413, "VLLM::Worker_TP1", 29450)])
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=interval, endpoint="http://192.168.1.60:8000",
        notes="1Cat-vLLM (vLLM fork for V100) serving Qwen3-14B-AWQ, TP2 on 2x V100-SXM2-32GB; the user ran a test script: "
              "5 concurrent requests of ~50,000 characters each, the same prompts for 3 rounds, and the log then showed "
              "'Prefix cache hit rate: 21.3%'; this capture was taken after the test (server idle): /metrics every 10 s, "
              "NVML, the tail of the server log; the test script and its prompts were not kept",
        version_body={"version": "0.19.1"},
        models_body=models_body(model, model, 40960, int(start + 125)),
        argv=None,
        args={"model": model, "tensor-parallel-size": 2, "max-model-len": 40960, "dtype": "float16"},
        model_config=QWEN3_14B_CONFIG, gpus=gpus, logs=join(logs),
    )


QWEN3_14B_CONFIG = {
    "architectures": ["Qwen3ForCausalLM"],
    "model_type": "qwen3",
    "hidden_size": 5120,
    "intermediate_size": 17408,
    "num_hidden_layers": 40,
    "num_attention_heads": 40,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "max_position_embeddings": 40960,
    "rope_theta": 1000000,
    "vocab_size": 151936,
    "torch_dtype": "float16",
    "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True, "version": "gemm"},
    "tie_word_embeddings": False,
    "transformers_version": "4.51.0",
}


BUILDERS = {
    "e-chandra-ocr-image-first": e_chandra_ocr_image_first,
    "e-gemma4-swa-round-robin-zero-hits": e_gemma4_swa_round_robin_zero_hits,
    "e-openclaw-daily-date-line": e_openclaw_daily_date_line,
    "e-dsv4-dp4-tiebreak-scatter": e_dsv4_dp4_tiebreak_scatter,
    "e-lmcache-gpu-already-hits-healthy": e_lmcache_gpu_already_hits_healthy,
    "e-1cat-three-rounds-21pct": e_1cat_three_rounds_21pct,
}


def main(argv: list[str]) -> int:
    for cid in argv or list(BUILDERS):
        BUILDERS[cid]()
        print("built", cid)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""zyq-gym-cookie-drop-dp-scatter: NeMo Gym multi-turn agent episodes whose session cookie is dropped on
every call, so Gym's vllm_model server round-robins each turn across 2 data-parallel vLLM servers
(NVIDIA-NeMo/Gym#1669). Fleet bundle: 2 endpoints scraped directly (docs/bundle-fleet.md)."""
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import v1gen  # noqa: E402
from v1gen import timeline, scrape, stats_logs, check  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
CASE = ROOT / "cases" / "zyq-gym-cookie-drop-dp-scatter"
MODEL = "Qwen/Qwen3-1.7B"
T0 = 1782208800.0  # 2026-06-23 10:00:00 UTC
DUR, IV = 600.0, 15.0
BS, MML = 16, 40960
BPT = 2 * 28 * 8 * 128 * 2  # 114,688 bytes per token
GIB = 1024 ** 3
KV_GIB = 63.41
NB = int(KV_GIB * GIB // (BPT * BS))
SYS = 1187  # shared Terminus-2 system prompt + tool schema, tokens
NENG = int(next((a.split("=")[1] for a in sys.argv if a.startswith("--eng=")), "8"))
NAMES = ["10.20.4.%d:8000" % (11 + i) for i in range(NENG)]

rng = random.Random(1669)


def blocks(n):
    return (n // BS) * BS


# 24 concurrent episode slots; each episode runs up to 16 turns; a finished episode is replaced by a new one.
reqs, episodes = [], []
rr = [0]
slot_t = [T0 - rng.uniform(0, 240.0) for _ in range(24)]
ep_id = 0
pending = []
for s in range(24):
    pending.append((slot_t[s], s))
cached = [dict() for _ in range(NENG)]  # engine -> {episode: cached prefix length (tokens, full blocks)}
sys_cached = [False] * NENG
events = []
# generate episodes per slot sequentially in time, then assign engines in global arrival order
for s in range(24):
    t = slot_t[s]
    while t < T0 + DUR:
        ep_id += 1
        task = rng.randint(350, 900)
        turns = rng.randint(10, 16)
        hist = SYS + task
        ep = {"id": ep_id, "turns": []}
        for k in range(turns):
            out = rng.randint(120, 420)
            ep["turns"].append({"t": t, "prompt": hist, "out": out, "ep": ep_id, "turn": k})
            tool = rng.randint(150, 900) if k < turns - 1 else 0
            ep["turns"][-1]["tool"] = tool
            ep["turns"][-1]["task"] = task
            t_end_est = t + 0.05 + hist / 60000.0 + out * 0.0062
            t = t_end_est + rng.uniform(1.5, 9.0)
            hist = hist + out + tool + 12
            if t >= T0 + DUR:
                break
        episodes.append(ep)
        t += rng.uniform(0.5, 3.0)

allturns = sorted((tr for ep in episodes for tr in ep["turns"]), key=lambda x: x["t"])
counter = 0
for tr in allturns:
    e = counter % NENG  # SessionMiddleware: new session id every call -> round robin over the clients
    counter += 1
    P = tr["prompt"]
    prev = cached[e].get(tr["ep"], 0)
    shared = blocks(SYS) if sys_cached[e] else 0
    hit = min(max(prev, shared), blocks(P - 1))
    ideal = min(blocks(tr.get("ideal_prev", 0)), blocks(P - 1))
    cached[e][tr["ep"]] = max(prev, blocks(P + tr["out"] - 1))
    sys_cached[e] = True
    r = {"t": tr["t"], "engine": 0, "replica": e, "prompt": P, "hit": hit, "out": tr["out"], "max_tokens": 4096,
         "reason": "stop", "prefill": round(0.018 + (P - hit) / 60000.0, 4), "tpot": round(rng.uniform(0.0058, 0.0068), 5),
         "ep": tr["ep"], "turn": tr["turn"]}
    reqs.append(timeline(r))

# what one engine per episode would have hit: previous turn's prompt + output, full blocks
by_ep = {}
for r in sorted(reqs, key=lambda x: x["t"]):
    by_ep.setdefault(r["ep"], []).append(r)
ideal_hits = ideal_win = 0
for ep, rs in by_ep.items():
    for i, r in enumerate(rs):
        ih = blocks(SYS) if i == 0 else min(blocks(rs[i - 1]["prompt"] + rs[i - 1]["out"] - 1), blocks(r["prompt"] - 1))
        r["ideal"] = ih
        ideal_hits += ih
        if T0 <= r["t"] <= T0 + DUR:
            ideal_win += ih

win = [r for r in reqs if T0 <= r["t"] <= T0 + DUR]
pre = [r for r in reqs if r["t"] < T0]


def tot(rs):
    return sum(r["prompt"] for r in rs), sum(r["hit"] for r in rs)


if "--numbers" in sys.argv:
    for e in range(NENG):
        rs = [r for r in reqs if r["replica"] == e]
        q, h = tot(rs)
        qw, hw = tot([r for r in win if r["replica"] == e])
        print("replica", e, "reqs", len(rs), "in window", sum(1 for r in win if r["replica"] == e), "hit all %.4f" % (h / q), "window q", qw, "h", hw, "%.4f" % (hw / qw))
    q, h = tot(reqs)
    qw, hw = tot(win)
    print("fleet all %.4f" % (h / q), "window q", qw, "h", hw, "rate %.4f" % (hw / qw), "ideal all %.4f" % (ideal_hits / q), "ideal window", ideal_win, "%.4f" % (ideal_win / qw))
    same = 0
    n = 0
    for ep, rs in by_ep.items():
        for a, b in zip(rs, rs[1:]):
            n += 1
            same += a["replica"] == b["replica"]
    print("consecutive turns on same replica", same, "/", n, "%.3f" % (same / n), "max prompt", max(r["prompt"] for r in reqs),
          "NB", NB, "tokens", NB * BS, "episodes", len(episodes), "reqs", len(reqs), "window reqs", len(win))
    import math
    mx = 0
    for T in range(int(T0), int(T0 + DUR) + 1, 10):
        for e in range(NENG):
            u = sum(math.ceil((r["prompt"] + v1gen.gen_done(r, T)) / BS) for r in reqs if r["replica"] == e and r["t_sched"] <= T < r["t_end"])
            live = sum(cached[e].values())
            mx = max(mx, u)
    print("max running blocks", mx, "cached episode tokens per engine", [sum(c.values()) // BS for c in cached])
    sys.exit(0)

# ---------------------------------------------------------------- bundle
import shutil  # noqa: E402

GPU_TOTAL = 85520809984
cache_labels = {"block_size": str(BS), "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
                "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
                "kv_sharing_fast_prefill": "False", "mamba_block_size": "None", "mamba_cache_dtype": "auto",
                "mamba_page_size_padded": "None", "mamba_ssm_cache_dtype": "auto", "num_cpu_blocks": "None",
                "num_gpu_blocks": str(NB), "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256",
                "sliding_window": "None", "swap_space": "4"}
cfg = {"model_name": MODEL, "max_model_len": MML, "num_blocks": NB, "block_size": BS, "cache_labels": cache_labels,
       "log_prefix": lambda e: "(APIServer pid=1) ", "log_lineno": 215}
mc = {"architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 151643,
      "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02,
      "intermediate_size": 6144, "max_position_embeddings": 40960, "max_window_layers": 28, "model_type": "qwen3",
      "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
      "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None, "tie_word_embeddings": True,
      "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": True, "use_sliding_window": False,
      "vocab_size": 151936}
server = {"version": {"version": "0.19.1"},
          "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": int(T0), "owned_by": "vllm",
                                                 "root": MODEL, "parent": None, "max_model_len": MML}]},
          "health": 200}
ea = {"argv": ["vllm", "serve", MODEL, "--host", "0.0.0.0", "--port", "8000", "--max-model-len", "40960",
               "--gpu-memory-utilization", "0.9"],
      "args": {"max-model-len": 40960, "gpu-memory-utilization": 0.9}}

B = CASE / "bundle"
if B.exists():
    shutil.rmtree(B)
rep_texts = []
for e in range(NENG):
    rs = [dict(r, engine=0) for r in reqs if r["replica"] == e]
    d = B / "replicas" / str(e)

    def gpu(T, e=e):
        return [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": GPU_TOTAL, "memory_used": int(72.61 * GIB),
                 "processes": [{"pid": 171 + e, "name": "VLLM::EngineCore", "used_memory": int(72.08 * GIB)}]}]

    v1gen.write_bundle(d, reqs=rs, cfg=cfg, t0=T0, t1=T0 + DUR, interval=IV, server=server, engine_args=ea,
                       model_config=mc, gpu=gpu, logs_head=[], endpoint="http://%s" % NAMES[e],
                       notes="replica %s of the fleet" % NAMES[e])
    (d / "logs.txt").unlink()
    rep_texts.append([json.loads(x) for x in (d / "metrics.jsonl").read_text().splitlines()])


def parse(text):
    fams, order, cur = {}, [], None
    for ln in text.splitlines():
        if ln.startswith("# HELP "):
            cur = ln.split()[2]
            if cur not in fams:
                fams[cur] = [ln, None, []]
                order.append(cur)
        elif ln.startswith("# TYPE "):
            fams[cur][1] = ln
        elif ln:
            fams[cur][2].append(ln)
    return fams, order


lines = []
for i in range(len(rep_texts[0])):
    merged, order = None, None
    per = []
    for e in range(NENG):
        f, o = parse(rep_texts[e][i]["text"])
        per.append(f)
        if order is None:
            order = o
    out = []
    for name in order:
        out += [per[0][name][0], per[0][name][1]]
        for e in range(NENG):
            out += [ln.replace('engine="0"', 'engine="%s/0"' % NAMES[e]) for ln in per[e][name][2]]
    lines.append(json.dumps({"t": rep_texts[0][i]["t"], "status": 200, "text": "\n".join(out) + "\n"}))
(B / "metrics.jsonl").write_text("\n".join(lines) + "\n")
(B / "manifest.json").write_text(json.dumps({"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0",
                                             "endpoint": "fleet: %d endpoints" % NENG, "started_at": T0, "ended_at": T0 + DUR,
                                             "interval_s": IV,
                                             "notes": "8 data-parallel vLLM servers (Qwen3-1.7B, one H100 each) behind NeMo Gym's vllm_model server; async GRPO rollouts of multi-turn Terminus-2 agent episodes"}, indent=2) + "\n")
(B / "fleet.json").write_text(json.dumps({"schema": "kvdoctor.fleet-endpoints/1",
                                          "replicas": [{"name": NAMES[e], "path": "replicas/%d" % e} for e in range(NENG)]}, indent=2) + "\n")

# prompts: three whole episodes that start and end inside the window, as chat messages
VOC = ("the file test run error line output cd ls cat grep python make build log path value check result code "
       "function return import config module install package list show step next fix update write read").split()
prng = random.Random(16690)


def words(n):
    return " ".join(prng.choice(VOC) for _ in range(n))


full = [ep for ep in episodes if ep["turns"] and ep["turns"][0]["t"] >= T0 + 5 and len(ep["turns"]) >= 12
        and ep["turns"][-1]["t"] < T0 + DUR - 30][:3]
system = words(SYS - 8)
prompts = []
for ep in full:
    msgs = [{"role": "system", "content": system}, {"role": "user", "content": words(ep["turns"][0]["task"])}]
    for tr in ep["turns"]:
        prompts.append({"messages": [dict(m) for m in msgs]})
        msgs.append({"role": "assistant", "content": words(tr["out"])})
        if tr["tool"]:
            msgs.append({"role": "user", "content": words(tr["tool"])})
(CASE / "prompts.jsonl").write_text("\n".join(json.dumps(p) for p in prompts) + "\n")
print("prompts", len(prompts), "episodes", [ep["id"] for ep in full])
check(B)
for e in range(NENG):
    check(B / "replicas" / str(e))

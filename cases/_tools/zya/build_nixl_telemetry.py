"""Bundle for zya-nixl-telemetry-fails-every-transfer: decode instance whose every NIXL KV load is
declared failed after NIXL reported it DONE (telemetry call raises)."""
import datetime as dt
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import pdsim as P

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / "cases" / "zya-nixl-telemetry-fails-every-transfer" / "bundle"
BS, POOL = 64, 19344                     # 1,238,016 tokens (assumed)
MODEL = "deepseek-ai/DeepSeek-V4.1"
MML = 131072
TP = 8
T_SERVE = 1790085600.0                   # 2026-09-22 14:00 UTC
N, IV = 61, 10.0
W_END = T_SERVE + 1500.0
W0 = W_END - (N - 1) * IV
NREQ = 2245                              # 17,960 failed transfers / 8 ranks

CACHE_INFO = {"block_size": str(BS), "cache_dtype": "auto", "calculate_kv_scales": "False",
              "cpu_offload_gb": "0", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
              "is_attention_free": "False", "kv_sharing_fast_prefill": "False", "num_cpu_blocks": "None",
              "num_gpu_blocks": str(POOL), "num_gpu_blocks_override": "None",
              "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4"}
KVCFG = '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'


def ts(t, glog=False):
    d = dt.datetime.fromtimestamp(t, dt.timezone.utc)
    return d.strftime("%m%d %H:%M:%S.%f") if glog else d.strftime("%m-%d %H:%M:%S")


def main():
    rng = random.Random(58038)
    t_first_req = T_SERVE + 130.0
    span = W_END - 0.7 - t_first_req
    arr = sorted(t_first_req + rng.random() * span for _ in range(NREQ))
    reqs = []
    for a in arr:
        p = rng.randint(1500, 9000)
        reqs.append(P.Req(t_arr=round(a, 3), prompt=p, gen=0, max_tokens=1024,
                          xfer_s=round(0.012 + p * 70272 / 22e9 + rng.random() * 0.01, 4), xfer_ok=False))
    P.simulate(reqs, POOL, BS, lambda n: 0.03)
    return reqs


def nixl_fn(reqs):
    def f(e, lab, t, created):
        e.hist("vllm:nixl_xfer_time_seconds", "Histogram of transfer duration for NIXL KV Cache transfers.", lab, [],
               [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 5.0], created)
        e.hist("vllm:nixl_post_time_seconds", "Histogram of transfer post time for NIXL KV Cache transfers.", lab, [],
               [0.001, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 5.0], created)
        e.hist("vllm:nixl_bytes_transferred", "Histogram of bytes transferred per NIXL KV Cache transfers.", lab, [],
               [2 ** (10 + i) for i in range(1, 25, 2)], created)
        e.hist("vllm:nixl_num_descriptors", "Histogram of number of descriptors per NIXL KV Cache transfers.", lab, [],
               [10, 20, 30, 50, 75, 100, 200, 400, 1000, 2000, 4000, 10000, 20000, 50000], created)
        nf = TP * sum(1 for r in reqs if r.t_sched <= t)
        e.counter("vllm:nixl_num_failed_transfers", "Number of failed NIXL KV Cache transfers.", [(lab, nf)], created)
        e.counter("vllm:nixl_num_failed_notifications", "Number of failed NIXL KV Cache notifications.", [(lab, 0)], created)
        e.counter("vllm:nixl_num_kv_expired_reqs", "Number of requests that had their KV expire. NOTE: This metric is tracked on the P instance.", [(lab, 0)], created)
    return f


def build():
    reqs = main()
    steps = []
    created = T_SERVE + 118.0
    nf = nixl_fn(reqs)
    scrapes = []
    for k in range(N):
        t = W0 + k * IV + 0.3
        scrapes.append((round(t, 3), P.scrape(reqs, t, created, MODEL, MML, BS, POOL, CACHE_INFO, steps, nixl=nf)))
    api, core = 811, 1042
    wpid = [1377 + i for i in range(TP)]
    L = []
    t0 = T_SERVE
    L.append(f"(APIServer pid={api}) INFO {ts(t0)} [api_server.py:1885] vLLM API server version 0.23.1")
    L.append(f"(APIServer pid={api}) INFO {ts(t0)} [utils.py:233] non-default args: {{'model_tag': '{MODEL}', 'port': 8200, 'model': '{MODEL}', 'trust_remote_code': True, 'max_model_len': {MML}, 'tensor_parallel_size': 8, 'gpu_memory_utilization': 0.9, 'kv_transfer_config': KVTransferConfig(kv_connector='NixlConnector', kv_role='kv_both')}}")
    L.append(f"(EngineCore_DP0 pid={core}) INFO {ts(t0+12)} [core.py:93] Initializing a V1 LLM engine (v0.23.1) with config: model='{MODEL}', dtype=torch.bfloat16, max_seq_len={MML}, tensor_parallel_size=8, served_model_name={MODEL}, enable_prefix_caching=True")
    for i, pid in enumerate(wpid):
        L.append(f"(Worker_TP{i} pid={pid}) INFO {ts(t0+31)} [factory.py:51] Creating v1 connector with name: NixlConnector and engine_id: 3f0b6a1e-decode-{i}")
        L.append(f"W{ts(t0+31, True)} {pid} nixl_agent.cpp:215] NIXL telemetry is disabled; ignoring telemetry requested through agent config")
    L.append(f"(EngineCore_DP0 pid={core}) INFO {ts(t0+98)} [kv_cache_utils.py:1291] GPU KV cache size: 1,238,016 tokens")
    L.append(f"(EngineCore_DP0 pid={core}) INFO {ts(t0+98)} [kv_cache_utils.py:1296] Maximum concurrency for 131,072 tokens per request: 9.45x")
    L.append(f"(APIServer pid={api}) INFO {ts(t0+118)} [api_server.py:1957] Starting vLLM API server 0 on http://0.0.0.0:8200")
    ev = []
    first = True
    for n, r in enumerate(reqs):
        if r.t_sched < W0 - 60 and not first:
            continue
        rid = f"cmpl-{n:05d}a{(n * 7919) % 100000:05d}-0"
        ctx = ("{'failure_type': 'transfer_exception', 'request_id': '" + rid + "', 'engine_id': '3f0b6a1e-decode-0', "
               "'remote_engine_id': 'a81c55d2-prefill-0', 'remote_request_id': 'prefill-" + rid + "', 'remote_host': '10.0.12.7', "
               "'remote_port': 5600, 'num_local_blocks': " + str(-(-r.prompt // BS)) + ", 'num_remote_blocks': " + str(-(-r.prompt // BS)) + "}")
        ev.append((r.t_sched, f"(Worker_TP0 pid={wpid[0]}) ERROR {ts(r.t_sched)} [base_worker.py:2123] NIXL transfer failure: transfer_exception. Marking blocks as invalid | Context: {ctx}"))
        if first:
            tb = ["Traceback (most recent call last):",
                  '  File "/usr/local/lib/python3.12/dist-packages/vllm/distributed/kv_transfer/kv_connector/v1/nixl/base_worker.py", line 3015, in _pop_done_transfers',
                  "    res = self.nixl_wrapper.get_xfer_telemetry(handle)",
                  '  File "/usr/local/lib/python3.12/dist-packages/nixl/_api.py", line 690, in get_xfer_telemetry',
                  "    return self.agent.getXferTelemetry(handle._handle)",
                  "nixl._bindings.nixlNoTelemetryError: NIXL_ERR_NO_TELEMETRY"]
            for j, line in enumerate(tb):
                ev.append((r.t_sched + 1e-6 * (j + 1), f"(Worker_TP0 pid={wpid[0]}) ERROR {ts(r.t_sched)} [base_worker.py:2123] {line}"))
            first = False
        ev.append((r.t_sched + 0.001, f"(EngineCore_DP0 pid={core}) WARNING {ts(r.t_sched)} [scheduler.py:1873] Skipping KV post-processing for failed request {rid}"))
    # per-interval stats at DEBUG (engine idle: both throughputs 0), operator ran VLLM_LOGGING_LEVEL=DEBUG
    tl = W0 - 60.0
    while tl <= W_END:
        run, wait, u = P.state(reqs, tl, BS, POOL)
        st = [r for r in reqs if r.t_sched <= tl]
        eq = sum(r.prompt for r in st) or 1
        eh = sum(r.prompt - 1 for r in st)
        ev.append((tl, f"(APIServer pid={api}) DEBUG {ts(tl)} [loggers.py:259] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: {len(run)} reqs, Waiting: {len(wait)} reqs, GPU KV cache usage: {u*100:.1f}%, Prefix cache hit rate: 0.0%, External prefix cache hit rate: {eh/eq*100:.1f}%"))
        ev.append((tl + 1e-6, f"(APIServer pid={api}) DEBUG {ts(tl)} [metrics.py:118] KV Transfer metrics: Num successful transfers=0, Avg xfer time (ms)=0, P90 xfer time (ms)=0, Avg post time (ms)=0, P90 post time (ms)=0, Avg MB per transfer=0, Throughput (MB/s)=0, Avg number of descriptors=0"))
        tl += 10.0
    ev.sort(key=lambda x: x[0])
    L.extend(x[1] for x in ev)
    logs = "\n".join(L) + "\n"
    gpu = []
    for k in range(N):
        t = W0 + k * IV + 0.5
        devs = [{"index": i, "name": "NVIDIA H200", "memory_total": 143771 * 2**20, "memory_used": 130410 * 2**20,
                 "processes": [{"pid": wpid[i], "name": "VLLM::Worker_TP%d" % i, "used_memory": 129880 * 2**20}]} for i in range(TP)]
        gpu.append({"t": round(t, 3), "devices": devs})
    manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://decode-0:8200",
                "started_at": W0, "ended_at": W0 + (N - 1) * IV + 0.3, "interval_s": IV,
                "notes": "decode instance of a P/D pair (NixlConnector, UCX) after rebuilding the image with nixl-cu13 1.4.1; clients get HTTP 500 on every request"}
    server = {"version": {"version": "0.23.1"},
              "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": int(W0), "owned_by": "vllm",
                         "root": MODEL, "parent": None, "max_model_len": MML}]}, "health": 200}
    argv = ["vllm", "serve", MODEL, "--port", "8200", "--trust-remote-code", "--tensor-parallel-size", "8",
            "--max-model-len", str(MML), "--gpu-memory-utilization", "0.9", "--kv-transfer-config", KVCFG]
    eargs = {"argv": argv, "args": {"model": MODEL, "tensor-parallel-size": 8, "max-model-len": MML,
             "gpu-memory-utilization": 0.9, "trust-remote-code": True, "kv-transfer-config": KVCFG}}
    P.write_bundle(OUT, manifest, scrapes, server, eargs, None, gpu, logs)
    return reqs


if __name__ == "__main__":
    reqs = build()
    print(len(reqs), sum(1 for r in reqs if r.t_sched <= W0 + (N - 1) * IV + 0.3))

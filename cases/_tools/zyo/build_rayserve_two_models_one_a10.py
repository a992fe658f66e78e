"""Bundle for zyo-rayserve-two-models-one-a10 (vLLM #4242): second vLLM 0.3.0 engine on a shared A10 gets 0 blocks."""
import os, sys, calendar, time
sys.path.insert(0, os.path.dirname(__file__))
from common import write_json, write_jsonl, manifest

D = os.path.join(os.path.dirname(__file__), "..", "..", "zyo-rayserve-two-models-one-a10", "bundle")
os.makedirs(D, exist_ok=True)
T0 = calendar.timegm((2024, 4, 21, 15, 12, 15))
GiB = 2 ** 30
MODEL = "/models/TinyLlama-1.1B-Chat-v1.0"

NV_TOTAL = 23028 * 2 ** 20            # A10: 23,028 MiB
total = NV_TOTAL / GiB                 # 22.49 GiB
util = 0.4
first = 10.0 * GiB                     # model1 replica, running
ctx, weights, act = 0.30, 2.05, 0.05   # model2: CUDA context, weights, profile peak
used_profile = first / GiB + ctx + weights + act
budget = total * util
blk = 2 * 22 * 4 * 64 * 2 * 16
gpu_blocks = max(int((budget - used_profile) * GiB // blk), 0)
cpu_blocks = int(4 * GiB // blk)

# engine args as the operator gives them (AsyncEngineArgs inside a Ray Serve deployment; no CLI)
write_json(os.path.join(D, "engine_args.json"), {"argv": None, "args": {
    "model": MODEL, "gpu-memory-utilization": 0.4, "max-model-len": 128, "enforce-eager": True}})
write_json(os.path.join(D, "model_config.json"), {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "bos_token_id": 1, "eos_token_id": 2,
    "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 5632,
    "max_position_embeddings": 2048, "model_type": "llama", "num_attention_heads": 32,
    "num_hidden_layers": 22, "num_key_value_heads": 4, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
    "rope_scaling": None, "rope_theta": 10000.0, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "transformers_version": "4.35.0", "use_cache": True, "vocab_size": 32000})

def ts(t):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(t))
def rts(t):
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t)) + ",%03d" % int((t % 1) * 1000)

P = "(ServeReplica:model2:MyModel pid=66303)"
L = [
 f"{rts(T0+0.310)} INFO worker.py:1540 -- Connecting to existing Ray cluster at address: 10.5.8.112:6379...",
 f"{rts(T0+0.317)} INFO worker.py:1715 -- Connected to Ray cluster. View the dashboard at 127.0.0.1:8265 ",
 f"(ServeController pid=11766) INFO {rts(T0+0.44)} controller 11766 deployment_state.py:1545 - Deploying new version of deployment MyModel in application 'model2'. Setting initial target number of replicas to 1.",
 f"(ServeController pid=11766) INFO {rts(T0+0.541)} controller 11766 deployment_state.py:1829 - Adding 1 replica to deployment MyModel in application 'model2'.",
 f"{P} INFO {ts(T0+4)} llm_engine.py:70] Initializing an LLM engine with config: model='{MODEL}', tokenizer='{MODEL}', tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=128, download_dir=None, load_format=auto, tensor_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=True, kv_cache_dtype=auto, seed=0)",
 f"{P} INFO {ts(T0+9)} weight_utils.py:163] Using model weights format ['*.safetensors']",
 f"{P} INFO {ts(T0+11)} llm_engine.py:316] # GPU blocks: {gpu_blocks}, # CPU blocks: {cpu_blocks}",
 f"(ServeController pid=11766) ERROR {rts(T0+11.4)} controller 11766 deployment_state.py:658 - Exception in replica 'model2#MyModel#k3vq8e2f', the replica will be stopped.",
 "(ServeController pid=11766) Traceback (most recent call last):",
 "(ServeController pid=11766)   File \"/usr/local/lib/python3.10/dist-packages/ray/serve/_private/deployment_state.py\", line 656, in check_ready",
 "(ServeController pid=11766)     _, self._version = ray.get(self._ready_obj_ref)",
 "(ServeController pid=11766) ray.exceptions.RayTaskError(RuntimeError): ray::ServeReplica:model2:MyModel.initialize_and_get_metadata() (pid=66303, ip=10.5.8.112, actor_id=...)",
 "(ServeController pid=11766)   File \"/app/serve_model2.py\", line 31, in __init__",
 "(ServeController pid=11766)     self.engine = AsyncLLMEngine.from_engine_args(ENGINE_ARGS)",
 "(ServeController pid=11766)   File \"/usr/local/lib/python3.10/dist-packages/vllm/engine/llm_engine.py\", line 128, in __init__",
 "(ServeController pid=11766)     self._init_cache()",
 "(ServeController pid=11766)   File \"/usr/local/lib/python3.10/dist-packages/vllm/engine/llm_engine.py\", line 320, in _init_cache",
 "(ServeController pid=11766)     raise ValueError(\"No available memory for the cache blocks. \"",
 "(ServeController pid=11766) ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.",
]
with open(os.path.join(D, "logs.txt"), "w") as f:
    f.write("\n".join(L) + "\n")

rows = [{"t": T0 + 15.0 + 10.0 * i, "error": "GET http://10.5.8.112:8000/metrics: HTTP 404 Not Found"} for i in range(3)]
write_jsonl(os.path.join(D, "metrics.jsonl"), rows)

m2 = int((ctx + weights + act) * GiB)
gpu = [
 {"t": T0 + 10.0, "devices": [{"index": 0, "name": "NVIDIA A10", "memory_total": NV_TOTAL,
   "memory_used": int(first) + m2 + 260 * 2 ** 20, "processes": [
     {"pid": 61877, "name": "ray::ServeReplica:model1:MyModel", "used_memory": int(first)},
     {"pid": 66303, "name": "ray::ServeReplica:model2:MyModel", "used_memory": m2}]}]},
 {"t": T0 + 20.0, "devices": [{"index": 0, "name": "NVIDIA A10", "memory_total": NV_TOTAL,
   "memory_used": int(first) + 260 * 2 ** 20, "processes": [
     {"pid": 61877, "name": "ray::ServeReplica:model1:MyModel", "used_memory": int(first)}]}]},
]
write_jsonl(os.path.join(D, "gpu.jsonl"), gpu)
manifest(D, "http://10.5.8.112:8000", T0 + 10.0, T0 + 35.0, 10.0,
         "Ray Serve cluster (A10 node); deploying application 'model2' (TinyLlama 1.1B, vLLM 0.3.0 AsyncLLMEngine) next to the running 'model1' on the same GPU. The engines expose no /metrics route.")
print("total %.2f budget %.2f used_profile %.2f blocks %d cpu %d m2 %.2f GiB" % (total, budget, used_profile, gpu_blocks, cpu_blocks, m2 / GiB))

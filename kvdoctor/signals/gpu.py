"""GPU signals from the NVML samples (gpu.jsonl): the busiest device's memory, other processes'
memory, and the device's published bandwidth."""

from __future__ import annotations

from kvdoctor.bundle.model import Bundle, GpuProcess
from kvdoctor.lazyre import LazyPattern
from kvdoctor.signals.common import Out, not_checked_reason
from kvdoctor.signals.physics import bandwidth_of

# vLLM's own processes name their PID in every log line they write: "(EngineCore_DP0
# pid=4242)", "(VllmWorker TP1 pid=4301)", "(Worker_TP0 pid=...)", "(APIServer pid=...)".
# Ray Serve prefixes a replica's lines with its actor ("(ServeReplica:app:Deployment pid=N)").
_LOG_PID = LazyPattern(
    r"\((?:[A-Za-z_]*(?:Engine|Worker|APIServer|vllm|VLLM)[\w ]*?|ServeReplica:[\w:.-]*) "
    r"pid=(\d+)\)"
)


# torch's out-of-memory message lists every process holding memory on the device it failed
# on: "... of which 10.21 GiB is free. Process 2891 has 84.78 GiB memory in use. Of the
# allocated memory ...". The failing process always holds memory there, so a list of one
# names the server itself (external case zzc-mllama, holdout-13: a V0 server dying in its
# profile run, NVML showing only "python3" 2891, read as another process).
_OOM_HOLDERS = LazyPattern(r"is free\.((?: Process \d+ has [\d.]+ [GM]iB memory in use\.)+)")
_OOM_PID = LazyPattern(r"Process (\d+) has")


def server_pids(logs: str | None) -> frozenset[int]:
    """PIDs of vLLM's engine core, workers and ranks named in the server log, and the sole
    holder an out-of-memory message lists."""
    if not logs:
        return frozenset()
    pids = {int(m.group(1)) for m in _LOG_PID.finditer(logs)}
    for m in _OOM_HOLDERS.finditer(logs):
        holders = _OOM_PID.findall(m.group(1))
        if len(holders) == 1:
            pids.add(int(holders[0]))
    return frozenset(pids)


def _is_server_process(name: str, pid: int, pids: frozenset[int]) -> bool:
    # The GPU probe names processes of the detected vLLM server "vllm (...)"; vLLM's own
    # workers set titles like "VLLM::EngineCore" / "VLLM::Worker"; ranks the log names by PID
    # are the server's too, whatever NVML calls them ("python3").
    # Under Ray (multi-node tensor or pipeline parallelism) vLLM's ranks are Ray actors that
    # NVML lists as "ray::RayWorkerWrapper".
    low = name.lower()
    return (
        pid in pids
        or "vllm" in low
        or "enginecore" in low
        or "rayworker" in low
        or low.startswith("ray::")
    )


def _vllm_titled(name: str) -> bool:
    # vLLM's own process titles: "VLLM::EngineCore", "VLLM::Worker_TP0", "VllmWorkerProcess".
    low = name.lower()
    return "enginecore" in low or low.startswith("vllm::") or "vllmworker" in low


def _other_instance_pids(processes: list[GpuProcess], pids: frozenset[int]) -> frozenset[int]:
    """vLLM processes of another instance on this device: when the log names this server's
    process on the device by PID, any other process with a vLLM title is a second instance's
    (external cases v-asr: an aligner and an ASR server started together on one card, each
    profiling the other's loading as its own use; y-sleep: a sleeping model's TP workers
    holding 148 GiB beside the one waking). PIDs the log does not name (a container's
    namespace) decide nothing: the title alone cannot tell two instances apart."""
    # Ray Serve runs each replica's engine inside its own actor ("ray::ServeReplica:<app>"):
    # beside the actor the log names, another replica's actor is another instance (external
    # case zyo-rayserve: two TinyLlama deployments at 0.4 on one A10, the first holding
    # 10 GiB while the second profiled). A tensor-parallel rank ("ray::RayWorkerWrapper") is
    # this server's own.
    titled = {
        p.pid
        for p in processes
        if _vllm_titled(p.name)
        or (p.name.lower().startswith("ray::") and "rayworker" not in p.name.lower())
    }
    if len(titled) < 2 or not titled & pids:
        return frozenset()
    return frozenset(titled - pids)


def gpu(out: Out, bundle: Bundle) -> None:
    names = (
        "gpu_memory_used_bytes",
        "gpu_memory_total_bytes",
        "gpu_memory_used_fraction",
        "gpu_other_process_bytes",
    )
    samples = bundle.gpu
    if not samples or not any(s.devices for s in samples):
        why = not_checked_reason(bundle, "gpu", "no GPU samples in the bundle")
        for n in (*names, "gpu_name", "gpu_bandwidth", "gpu_device_count"):
            out.set(n, None, reason=why)
        return
    # The busiest device: highest used memory at any sample (ties: lowest index).
    peak: dict[int, tuple[int, int]] = {}
    # Other processes' memory per device (memory is per device: two cards' sums are not one
    # card's need), the largest of any device at any sample.
    other_peak: int | None = None
    log_pids = server_pids(bundle.logs)
    weights = out.ss.get("log_weights_bytes")
    # While the server answers its /metrics it holds memory on its devices: a device's only
    # process, unnamed ("python3"), is the server's own, not another process beside it.
    serving = any(sc.ok for sc in bundle.scrapes)

    def sole_server(holders: list[GpuProcess]) -> bool:
        # The same holds for a server that failed at start-up when the device's only process
        # holds at least the weights its log says it loaded (an offline LLM() in a notebook:
        # NVML names the kernel "python3").
        return len(holders) == 1 and (
            serving
            or (
                isinstance(weights, int)
                and weights > 0
                and (holders[0].used_memory or 0) >= 0.9 * weights
            )
        )

    # A process shown to be the server's at one sample is the server's at every sample: while
    # it loads the weights it holds less than them (external case m-v100: each V100's only
    # process, PID 2870 outside the container's pid=90, counted as "another process" with the
    # 5.9 GiB it held half-way through loading).
    # On a device where NVML shows a PID the log names, the log has said which process is the
    # server's there: a sole holder after the server died is another instance (external case
    # v-asr), not the server seen from outside a container. A V0 driver rank the log never
    # names by PID still proves itself on its own device (external case d-lora).
    named = {
        d.index for s in samples for d in s.devices if any(p.pid in log_pids for p in d.processes)
    }
    # A server that never answered and dies at start-up over and over (a supervisor restarting
    # it) holds a device alone under a new PID each time: on a device the log names, a sole
    # holder never seen beside a named PID is that server again (external case zzc-mllama,
    # holdout-13: PIDs 2891, 2928, 2965, ... each growing to 82 GiB and dying in the profile
    # run). One seen beside the server at any sample is another instance (external case v-asr).
    beside = {
        p.pid
        for s in samples
        for d in s.devices
        if any(q.pid in log_pids for q in d.processes)
        for p in d.processes
        if p.pid not in log_pids
    }

    # A tensor-parallel launch's driver rank: the log names the worker ranks by PID but not
    # the process that drives device 0. A device's sole holder that holds what a named rank
    # holds on another device at every sample it is seen, at three samples or more, is a rank
    # of the same launch loading the same shard (external case zyj-tp8: a 70B model at TP8
    # on 14.6 GiB cards, PID 195290 alone on device 0 growing 0.2 → 14.6 GiB beside ranks
    # 195291-195297 doing the same, read as "another process holds 14.6 GiB").
    tracked: dict[int, list[bool]] = {}
    for s in samples:
        ranks = [
            p.used_memory
            for d in s.devices
            for p in d.processes
            if p.pid in log_pids and p.used_memory
        ]
        for d in s.devices:
            holders = [p for p in d.processes if p.used_memory]
            if d.index in named or len(holders) != 1:
                continue
            mem = holders[0].used_memory or 0
            tracked.setdefault(holders[0].pid, []).append(
                any(abs(m - mem) <= 0.05 * max(m, mem) for m in ranks)
            )
    in_step = {pid for pid, seen in tracked.items() if len(seen) >= 3 and all(seen)}

    def proves(index: int, holders: list[GpuProcess]) -> bool:
        if index not in named:
            return sole_server(holders) or (len(holders) == 1 and holders[0].pid in in_step)
        return not serving and len(holders) == 1 and holders[0].pid not in beside

    proven = {
        holders[0].pid
        for s in samples
        for d in s.devices
        if proves(d.index, holders := [p for p in d.processes if p.used_memory])
    }
    pids = log_pids | frozenset(proven)
    # A vLLM process once seen beside the server's is another instance's at every sample,
    # also after the server died and it holds the device alone.
    rivals = frozenset().union(
        *(_other_instance_pids(d.processes, log_pids) for s in samples for d in s.devices)
    )
    for s in samples:
        for d in s.devices:
            used, total = peak.get(d.index, (0, d.memory_total))
            peak[d.index] = (max(used, d.memory_used), d.memory_total)
            other = 0
            known = False
            for p in d.processes:
                if p.used_memory is None:
                    continue
                known = True
                # A device's sole holder is in ``pids`` already (``proven``).
                if p.pid in rivals or not _is_server_process(p.name, p.pid, pids):
                    other += p.used_memory
            if known:
                other_peak = other if other_peak is None else max(other_peak, other)
    index = min(peak, key=lambda i: (-peak[i][0], i))
    used, total = peak[index]
    prov = f"gpu.jsonl: device {index}, peak over {len(samples)} NVML samples"
    out.set("gpu_memory_used_bytes", used, prov)
    out.set("gpu_memory_total_bytes", total, prov)
    out.set(
        "gpu_memory_used_fraction",
        used / total if total > 0 else None,
        prov,
        reason="device reports zero total memory",
    )
    out.set("gpu_device_count", len(peak), f"gpu.jsonl: devices over {len(samples)} samples")
    out.set(
        "gpu_other_process_bytes",
        other_peak,
        "gpu.jsonl: peak memory on one device of processes not belonging to the vLLM server "
        "(vLLM's engine core, workers and the ranks its log names by PID excluded)",
        reason="NVML gave no per-process memory",
    )
    name = next((d.name for s in samples for d in s.devices if d.index == index), None)
    out.set("gpu_name", name or None, prov, reason="NVML gave no device name")

    bw = bandwidth_of(name) if name else None
    out.set(
        "gpu_bandwidth",
        bw[0] if bw else None,
        f"published peak bandwidth of {name}: {bw[1]}" if bw else "",
        reason=f"{name!r} is not in the bandwidth table (signals/physics.py)",
    )

"""The few words the rendered tables and figures need, in both languages (no torch import)."""

from __future__ import annotations

LANGS = ("en", "zh-TW")

TEXT: dict[str, dict[str, str]] = {
    "en": {
        "measured_on": "Measured on",
        "sms": "SMs",
        "commit": "commit",
        "live": "measured live by this build",
        "snapshot": "from the committed snapshot (this build did not measure)",
        "shape": "shape",
        "variant": "Variant",
        "kernels": "Kernels",
        "kernels_and_copies": "Kernels + memcpys",
        "gpu_activities": "GPU activities",
        "device_time": "Device time / call",
        "host_time": "Host time / call",
        "main_kernel": "Main kernel",
        "registers": "Registers / thread",
        "occupancy": "Est. occupancy",
        "tensor_cores": "Tensor Cores",
        "peak_memory": "Peak memory / call",
        "rel_error": "Error vs float64",
        "unavailable": "unavailable on this device",
        "yes": "yes", "no": "no", "unknown": "not from the name",
        "kind": "Kind", "name": "Name", "launch": "Launched by", "grid": "Grid", "block": "Block",
        "smem": "Shared memory", "duration": "Duration",
        "op": "Host op", "count": "Calls", "self": "Self time", "total": "Total time",
        "download_trace": "Download the Kineto trace",
        "open_in_perfetto": "open it in Perfetto",
        "per_forward": "per forward, median over the active profiler steps",
        "quoted": "quoted from the article (A100)",
        "ours": "measured here",
        "article": "Article (A100, quoted)",
        "source": "Source",
        "auto_backend": "An un-pinned SDPA call ran",
        "evidence": "read from the aten op",
        "cpu_note": "The CPU has no kernel events: host ops stand in for kernels.",
        "figure": "Figure",
        "claim": "Claim", "statement": "Statement", "expected": "Expected", "verdict": "Verdict",
        "holds": "holds", "fails": "fails", "not_applicable": "does not apply here",
        "claim_title": "Claim {id}: expected {expected}; measured {measured} on {device}: {verdict}",
        "kernels_fig_alt": "Bar chart: GPU activities per forward for each variant, split into kernels, memory copies and memsets; the article's A100 kernel counts are marked.",
        "time_fig_alt": "Bar chart: device time and host (dispatch) time per call for each variant, in microseconds, with interquartile ranges.",
        "timeline_fig_alt": "Timeline of one forward of {title}: host-side operators and launch calls above, GPU kernels below, on a shared time axis in microseconds.",
        "regs_fig_alt": "Scatter plot: registers per thread against Kineto's estimated occupancy for every kernel measured, coloured by variant.",
    },
    "zh-TW": {
        "measured_on": "量測環境",
        "sms": "個 SM",
        "commit": "commit",
        "live": "本次建置即時量測",
        "snapshot": "取自已提交的快照（本次建置未量測）",
        "shape": "形狀",
        "variant": "實作",
        "kernels": "Kernel 數",
        "kernels_and_copies": "Kernel + memcpy 數",
        "gpu_activities": "GPU 活動",
        "device_time": "每次呼叫的裝置時間",
        "host_time": "每次呼叫的主機時間",
        "main_kernel": "主要 kernel",
        "registers": "每執行緒暫存器",
        "occupancy": "估計 occupancy",
        "tensor_cores": "Tensor Core",
        "peak_memory": "每次呼叫的記憶體峰值",
        "rel_error": "相對 float64 的誤差",
        "unavailable": "此裝置無法使用",
        "yes": "是", "no": "否", "unknown": "名稱看不出來",
        "kind": "類型", "name": "名稱", "launch": "啟動方式", "grid": "Grid", "block": "Block",
        "smem": "共享記憶體", "duration": "耗時",
        "op": "主機端運算子", "count": "呼叫次數", "self": "自身時間", "total": "總時間",
        "download_trace": "下載 Kineto trace",
        "open_in_perfetto": "用 Perfetto 開啟",
        "per_forward": "每次 forward，取 profiler 各 active step 的中位數",
        "quoted": "引用自原文（A100）",
        "ours": "本站量測",
        "article": "原文（A100，引用）",
        "source": "來源",
        "auto_backend": "不指定後端時，SDPA 實際執行的是",
        "evidence": "依據 aten 運算子",
        "cpu_note": "CPU 沒有 kernel 事件，以主機端運算子代替。",
        "figure": "圖",
        "claim": "主張", "statement": "內容", "expected": "預期", "verdict": "判定",
        "holds": "成立", "fails": "不成立", "not_applicable": "不適用於此裝置",
        "claim_title": "主張 {id}：預期 {expected}；在 {device} 上量到 {measured}：{verdict}",
        "kernels_fig_alt": "長條圖：各實作每次 forward 的 GPU 活動數，分為 kernel、記憶體複製與 memset；並標出原文在 A100 上的 kernel 數。",
        "time_fig_alt": "長條圖：各實作每次呼叫的裝置時間與主機端（派發）時間，單位微秒，附四分位距。",
        "timeline_fig_alt": "{title} 單次 forward 的時間軸：上方是主機端運算子與啟動呼叫，下方是 GPU kernel，共用同一條以微秒為單位的時間軸。",
        "regs_fig_alt": "散佈圖：所有量測到的 kernel 的每執行緒暫存器數，對上 Kineto 估計的 occupancy，依實作著色。",
    },
}


def t(lang: str, key: str) -> str:
    """The word for `key` in `lang`; a missing key is a bug, so it raises."""
    if lang not in TEXT:
        raise KeyError(f"unknown language {lang!r}; known: {', '.join(LANGS)}")
    return TEXT[lang][key]

VARIANT_TITLES: dict[str, dict[str, str]] = {
    "en": {"naive": "Naive (masked_fill)", "naive_inplace": "Naive (masked_fill_)", "sdpa_math": "SDPA: math",
           "sdpa_efficient": "SDPA: efficient", "sdpa_flash": "SDPA: flash", "sdpa_cudnn": "SDPA: cuDNN"},
    "zh-TW": {"naive": "手寫版（masked_fill）", "naive_inplace": "手寫版（masked_fill_）", "sdpa_math": "SDPA：math",
              "sdpa_efficient": "SDPA：efficient", "sdpa_flash": "SDPA：flash", "sdpa_cudnn": "SDPA：cuDNN"},
}


def title(lang: str, variant_id: str) -> str:
    return VARIANT_TITLES[lang][variant_id]

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
        "live_short": "measured live", "snapshot_short": "committed snapshot",
        "marks_link": "what ✓ ✗ ? after a value mean", "about_link": "how the numbers are taken",
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
        "threads": "Threads / block", "kineto_pct": "Kineto %", "emulated_pct": "Calculator, 48 KiB default",
        "theoretical_pct": "Theoretical (opt-in)", "limit": "Limited by", "seen": "Seen in",
        "skipped": "does not fit", "kernels_fwd_bwd": "Kernels, forward + backward", "no_error": "no error raised",
        "kernels_or_ops": "kernels (GPU) / host ops (CPU)",
        "scaling_time_alt": "Line chart, log-log: device time per call against sequence length for every variant, one panel per head dimension; variants that do not fit in memory stop early.",
        "scaling_tflops_alt": "Line chart: achieved TFLOP/s as a fraction of the bf16 matrix-product peak measured on the same GPU, against sequence length, for every variant and head dimension.",
        "scaling_memory_alt": "Line chart, log-log: peak memory per call against sequence length; naive and math grow with the square of the sequence, the fused backends linearly.",
        "claim": "Claim", "statement": "Statement", "expected": "Expected", "verdict": "Verdict",
        "holds": "holds", "fails": "fails", "not_applicable": "does not apply here",
        "unsure": "undecided: the interval straddles the statement",
        "drift_no_baseline_title": "No baseline to compare with",
        "drift_no_baseline": "There is no committed snapshot of this device class ({slug}), so this measurement "
                             "is held to the claims alone. <code>attn-examples accept</code> makes one.",
        "drift_is_baseline_title": "This build renders the baseline",
        "drift_is_baseline": "The measurement on these pages is the committed baseline of its device class "
                             "({where}): a live build on this class of GPU is held to it.",
        "drift_unlike_title": "Not compared with the baseline",
        "drift_unlike": "The baseline of this device class, {where}, holds another measurement, so nothing was "
                        "compared:",
        "drift_none_title": "No drift",
        "drift_none": "Against the baseline {where}: the same variants, dispatch and kernel structure, and every "
                      "device-time share within the tolerance.",
        "drift_found_title": "Drift: {n} finding(s)",
        "drift_found": "Against the baseline {where} this measurement moved. A live build stops here; this one "
                       "renders a snapshot and shows what moved:",
        "interval": "({confidence} interval from the timing's blocks: {interval})", "interval_inline": "({confidence}: {interval})",
        "interval_set": "(what the timings' {confidence} intervals allow: {interval})",
        "undecided_interval": "This measurement cannot settle it: “{statement}” The value is {value}, but its {confidence} "
                              "interval, {interval}, reaches across the line the statement draws ({expected}).",
        "undecided_set": "This measurement cannot settle it: “{statement}” Within the timings' {confidence} intervals the "
                         "answer could be {interval}.",
        "claim_title": "Claim {id}: expected {expected}; measured {measured} on {device}: {verdict}",
        "kernels_fig_alt": "Bar chart: GPU activities per forward for each variant, split into kernels, memory copies and memsets; the article's A100 kernel counts are marked.",
        "time_fig_alt": "Bar chart: device time and host (dispatch) time per call for each variant, in microseconds, with interquartile ranges.",
        "timeline_fig_alt": "Timeline of one forward of {title}: host-side operators and launch calls above, GPU kernels below, on a shared time axis in microseconds.",
        "regs_fig_alt": "Scatter plot: registers per thread against Kineto's estimated occupancy for every kernel measured, coloured by variant.",
        "hbm_read": "HBM read", "hbm_write": "HBM written", "hbm_total": "HBM total", "x_qkvo": "× q+k+v+o",
        "x_scores": "× score matrix", "l2_write": "Written into L2", "tensor_gflop": "Tensor Core GFLOP",
        "fp32_gflop": "FP32 GFLOP (CUDA cores)", "wgmma": "wgmma", "tensor_busy": "Tensor pipe busy",
        "fma_busy": "FMA pipe busy", "ncu_time": "Kernel time (ncu)", "achieved_pct": "Achieved (counter)",
        "ncu_theoretical_pct": "Theoretical (ncu)", "counters_missing": "Hardware counters are not part of this measurement",
        "counters_tool": "Counters read by",
        "counters_how": "The sections below that rest on the counters say so where they would stand; to add them, run `attn-examples counters` on this snapshot on a machine with Nsight Compute.",
        "role": "What it does", "positions": "Position in the forward",
        "measurement": "Measurement", "this_site": "this site", "has_extended": "--extended",
        "has_counters": "counters", "unavailable_short": "unavailable", "ops_word": "host ops",
        "derived": "from the article's forward time",
        "and_join": " and ", "between": "between {low} and {high}", "within": "{value} ± {tolerance}",
        "matches": "matches {pattern}",
        "quoted_article": "Quoted from the article, measured on an {gpu}; not a measurement of ours",
        "quoted_paper": "Quoted from the paper, on its own hardware; not a measurement of ours",
        "claim_kind": "Kind", "kind_truth": "truth", "kind_observation": "observation",
        "observed": "observed here", "not_observed": "not observed here", "counters_command": "The exact ncu command", "hbm_fig_alt": "Bar chart, log scale: bytes each variant reads from and writes to HBM in one forward, measured with Nsight Compute, against the size of q, k, v and the output together and the size of one score matrix.",
        "roofline_fig_alt": "Roofline chart, log-log: every kernel that computes, placed by FLOP per HBM byte and TFLOP/s achieved (both from hardware counters), under roofs measured on the same GPU: copy bandwidth, fp32 matrix product and bf16 matrix product.",
        "match_note": "ncu's kernels matched to the Kineto profile by launch order; every name agrees.",
        "match_broken": "ncu's kernels do not line up with the Kineto profile (different count or names): Kineto's column is left empty.",
    },
    "zh-TW": {
        "measured_on": "量測環境",
        "sms": "個 SM",
        "commit": "commit",
        "live": "本次建置即時量測",
        "snapshot": "取自已提交的快照（本次建置未量測）",
        "live_short": "即時量測", "snapshot_short": "已提交的快照",
        "marks_link": "數值後面的 ✓、✗、? 是什麼意思", "about_link": "這些數字怎麼量出來",
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
        "threads": "每 block 執行緒", "kineto_pct": "Kineto %", "emulated_pct": "計算器（預設 48 KiB）",
        "theoretical_pct": "理論值（opt-in）", "limit": "受限於", "seen": "出現於",
        "skipped": "放不下", "kernels_fwd_bwd": "Kernel 數（forward + backward）", "no_error": "沒有引發錯誤",
        "kernels_or_ops": "kernel（GPU）／主機端運算子（CPU）",
        "scaling_time_alt": "雙對數折線圖：各實作每次呼叫的裝置時間對序列長度，每個 head 維度一張子圖；記憶體放不下的實作會提早中斷。",
        "scaling_tflops_alt": "折線圖：各實作與各 head 維度達到的 TFLOP/s，以同一張 GPU 上量到的 bf16 矩陣乘法峰值為分母，對序列長度作圖。",
        "scaling_memory_alt": "雙對數折線圖：每次呼叫的記憶體峰值對序列長度；手寫版與 math 隨序列長度平方成長，融合後端則是線性。",
        "claim": "主張", "statement": "內容", "expected": "預期", "verdict": "判定",
        "holds": "成立", "fails": "不成立", "not_applicable": "不適用於此裝置",
        "unsure": "無法判定：區間跨過了主張的界線",
        "drift_no_baseline_title": "沒有可比對的基準",
        "drift_no_baseline": "這類裝置沒有已提交的快照（{slug}），所以這次量測只受各項主張檢驗。"
                             "<code>attn-examples accept</code> 可以建立一份。",
        "drift_is_baseline_title": "這次建置呈現的就是基準",
        "drift_is_baseline": "這些頁面上的量測，正是這類裝置已提交的基準（{where}）：在這類 GPU 上的即時建置都以它為準。",
        "drift_unlike_title": "未與基準比對",
        "drift_unlike": "這類裝置的基準 {where} 記錄的是另一種量測，所以沒有比對任何項目：",
        "drift_none_title": "沒有漂移",
        "drift_none": "與基準 {where} 相比：實作、分派與 kernel 結構都相同，每個裝置時間占比都在容許範圍內。",
        "drift_found_title": "漂移：{n} 項",
        "drift_found": "與基準 {where} 相比，這次量測有所變動。即時建置會在這裡停下；這次建置呈現的是快照，"
                       "並列出變動之處：",
        "interval": "（依計時區塊求得的 {confidence} 區間：{interval}）", "interval_inline": "（{confidence}：{interval}）",
        "interval_set": "（計時的 {confidence} 區間所容許的結果：{interval}）",
        "undecided_interval": "這次量測無法判定「{statement}」：量到的值是 {value}，但它的 {confidence} 區間 {interval} "
                              "跨過了主張所劃的界線（{expected}）。",
        "undecided_set": "這次量測無法判定「{statement}」：在計時的 {confidence} 區間內，答案可能是 {interval}。",
        "claim_title": "主張 {id}：預期 {expected}；在 {device} 上量到 {measured}：{verdict}",
        "kernels_fig_alt": "長條圖：各實作每次 forward 的 GPU 活動數，分為 kernel、記憶體複製與 memset；並標出原文在 A100 上的 kernel 數。",
        "time_fig_alt": "長條圖：各實作每次呼叫的裝置時間與主機端（派發）時間，單位微秒，附四分位距。",
        "timeline_fig_alt": "{title} 單次 forward 的時間軸：上方是主機端運算子與啟動呼叫，下方是 GPU kernel，共用同一條以微秒為單位的時間軸。",
        "regs_fig_alt": "散佈圖：所有量測到的 kernel 的每執行緒暫存器數，對上 Kineto 估計的 occupancy，依實作著色。",
        "hbm_read": "HBM 讀取", "hbm_write": "HBM 寫入", "hbm_total": "HBM 合計", "x_qkvo": "× q+k+v+o",
        "x_scores": "× 分數矩陣", "l2_write": "寫入 L2", "tensor_gflop": "Tensor Core GFLOP",
        "fp32_gflop": "FP32 GFLOP（CUDA 核心）", "wgmma": "wgmma", "tensor_busy": "Tensor 管線忙碌",
        "fma_busy": "FMA 管線忙碌", "ncu_time": "Kernel 時間（ncu）", "achieved_pct": "實際值（計數器）",
        "ncu_theoretical_pct": "理論值（ncu）", "counters_missing": "這次量測沒有硬體計數器",
        "counters_tool": "計數器讀取工具",
        "counters_how": "下方仰賴計數器的段落會在原處說明；要補上計數器，請在裝有 Nsight Compute 的機器上對這份快照執行 `attn-examples counters`。",
        "role": "用途", "positions": "在 forward 中的位置",
        "measurement": "量測", "this_site": "本站", "has_extended": "--extended",
        "has_counters": "計數器", "unavailable_short": "無法使用", "ops_word": "個主機端運算子",
        "derived": "由原文的 forward 時間換算",
        "and_join": "與", "between": "介於 {low} 與 {high} 之間", "within": "{value} ± {tolerance}",
        "matches": "符合 {pattern}",
        "quoted_article": "引自原文，於 {gpu} 上量測，並非本站的量測",
        "quoted_paper": "引自論文，於論文自己的硬體上量測，並非本站的量測",
        "claim_kind": "類型", "kind_truth": "恆真", "kind_observation": "觀察",
        "observed": "此處觀察到", "not_observed": "此處未觀察到", "counters_command": "完整的 ncu 指令", "hbm_fig_alt": "長條圖（對數尺度）：各實作一次 forward 從 HBM 讀取與寫入的位元組數，以 Nsight Compute 量測，並標出 q、k、v 與輸出合計的大小，以及一個分數矩陣的大小。",
        "roofline_fig_alt": "雙對數 roofline 圖：每個有做運算的 kernel，依每 HBM 位元組的 FLOP 數與實際達到的 TFLOP/s（皆來自硬體計數器）定位；上限線是在同一張 GPU 上量到的複製頻寬、fp32 矩陣乘法與 bf16 矩陣乘法。",
        "match_note": "ncu 的 kernel 依啟動順序對應到 Kineto 的 profile，名稱全部一致。",
        "match_broken": "ncu 的 kernel 與 Kineto 的 profile 對不上（數量或名稱不同），Kineto 欄位留白。",
    },
}


def t(lang: str, key: str) -> str:
    """The word for `key` in `lang`; a missing key is a bug, so it raises."""
    if lang not in TEXT:
        raise KeyError(f"unknown language {lang!r}; known: {', '.join(LANGS)}")
    return TEXT[lang][key]

VARIANT_TITLES: dict[str, dict[str, str]] = {
    "en": {"naive": "Naive (masked_fill)", "naive_inplace": "Naive (masked_fill_)", "sdpa_math": "SDPA: math",
           "sdpa_efficient": "SDPA: efficient", "sdpa_flash": "SDPA: flash", "sdpa_cudnn": "SDPA: cuDNN",
           "flex": "FlexAttention (compiled)", "naive_compiled": "Naive, torch.compile"},
    "zh-TW": {"naive": "手寫版（masked_fill）", "naive_inplace": "手寫版（masked_fill_）", "sdpa_math": "SDPA：math",
              "sdpa_efficient": "SDPA：efficient", "sdpa_flash": "SDPA：flash", "sdpa_cudnn": "SDPA：cuDNN",
              "flex": "FlexAttention（編譯）", "naive_compiled": "手寫版，torch.compile"},
}


# The names a sentence uses (tables and legends use VARIANT_TITLES).
SHORT_TITLES: dict[str, dict[str, str]] = {
    "en": {"naive": "naive", "naive_inplace": "naive in place", "sdpa_math": "math", "sdpa_efficient": "efficient",
           "sdpa_flash": "flash", "sdpa_cudnn": "cuDNN", "flex": "FlexAttention", "naive_compiled": "compiled naive"},
    "zh-TW": {"naive": "手寫版", "naive_inplace": "原位手寫版", "sdpa_math": "math", "sdpa_efficient": "efficient",
              "sdpa_flash": "flash", "sdpa_cudnn": "cuDNN", "flex": "FlexAttention", "naive_compiled": "編譯後的手寫版"},
}

# What limits resident blocks, in the calculator's words (occupancy.py) and ncu's (launch__occupancy_limit_*).
LIMIT_WORDS: dict[str, dict[str, str]] = {
    "en": {"registers": "registers", "shared memory": "shared memory", "shared_mem": "shared memory",
           "threads": "threads", "warps": "warps", "blocks": "the block limit", "grid": "the grid",
           "shared memory above the per-block ceiling": "shared memory above the per-block ceiling"},
    "zh-TW": {"registers": "暫存器", "shared memory": "共享記憶體", "shared_mem": "共享記憶體",
              "threads": "執行緒數", "warps": "warp 數", "blocks": "block 數上限", "grid": "grid 大小",
              "shared memory above the per-block ceiling": "共享記憶體超過每個 block 的上限"},
}


# What a kernel does (views.ROLES), for the table that groups a forward's kernels.
ROLE_WORDS: dict[str, dict[str, str]] = {
    "en": {"attention": "fused attention", "combine": "combine split results", "gemm": "matrix product (GEMM)",
           "fused": "generated fused kernel", "convert": "dtype conversion (copy)", "scale": "multiply (scale)",
           "fill": "fill", "mask": "mask", "where": "select (where)", "add": "add", "softmax": "softmax",
           "isneginf": "test for −∞", "reduce": "reduction", "other": "other"},
    "zh-TW": {"attention": "融合 attention", "combine": "合併分段結果", "gemm": "矩陣乘法（GEMM）",
              "fused": "產生的融合 kernel", "convert": "型別轉換（複製）", "scale": "乘法（縮放）",
              "fill": "填值", "mask": "遮罩", "where": "選取（where）", "add": "加法", "softmax": "softmax",
              "isneginf": "檢查 −∞", "reduce": "歸約", "other": "其他"},
}


def title(lang: str, variant_id: str) -> str:
    return VARIANT_TITLES[lang][variant_id]

"""The site's words, in English and in the Chinese its zh-TW pages use: one term per concept (no torch).

One list feeds the glossary page (both languages), the Chinese word breaking (`cjk`: a term is never
split across lines) and the glossary test (each Chinese term is the one its page uses). A term that
Taiwan's engineers keep in English (kernel, warp, tile) has the English as its Chinese.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    en: str
    zh: str  # the term as the Chinese pages write it
    en_meaning: str
    zh_meaning: str
    page: str  # where it matters most: a page of docs/<lang>/


TERMS: tuple[Term, ...] = (
    Term(
        "kernel", "kernel", "A function the GPU runs, launched by the host.", "GPU 執行的函式，由主機啟動。", "naive.md"
    ),
    Term(
        "launch",
        "啟動",
        "The host asking the GPU to run a kernel (`cudaLaunchKernel`, `cuLaunchKernel`).",
        "主機要求 GPU 執行一個 kernel（`cudaLaunchKernel`、`cuLaunchKernel`）。",
        "naive.md",
    ),
    Term(
        "device time",
        "裝置時間",
        "The GPU time between CUDA events recorded around a forward whose kernels are all queued in advance: "
        "the gaps between its kernels included.",
        "一次 forward 的 kernel 全都事先排好，在它前後記錄的 CUDA 事件之間的 GPU 時間；kernel 之間的空檔也算在內。",
        "about.md",
    ),
    Term(
        "host time",
        "主機時間",
        "How long the CPU takes to issue a forward: Python, PyTorch's dispatcher, the launches.",
        "CPU 發出一次 forward 所花的時間：Python、PyTorch 的分派器、kernel 的啟動。",
        "about.md",
    ),
    Term(
        "launch-bound",
        "受限於啟動開銷",
        "The host takes longer to issue a forward than the GPU takes to run it.",
        "主機發出一次 forward 的時間，比 GPU 執行它還久。",
        "index.md",
    ),
    Term(
        "memory-bound",
        "受限於記憶體頻寬",
        "A forward whose kernels reach half of the measured memory-bandwidth roof on average, most of "
        "their time near a roof.",
        "forward 的 kernel 平均達到實測記憶體頻寬上限的一半，大部分時間都接近某一道上限。",
        "index.md",
    ),
    Term(
        "compute-bound",
        "受限於運算",
        "A forward whose kernels reach half of the measured roof of arithmetic on average, most of their "
        "time near a roof.",
        "forward 的 kernel 平均達到實測運算上限的一半，大部分時間都接近某一道上限。",
        "index.md",
    ),
    Term(
        "roofline",
        "roofline",
        "The roofs of bandwidth and arithmetic, measured on this GPU, against which a kernel's rates are read.",
        "在這張 GPU 上實測的頻寬與運算上限，用來衡量一個 kernel 的速率。",
        "counters.md",
    ),
    Term(
        "occupancy",
        "佔用率",
        "The warps resident on an SM as a share of the most it can hold: a means to hide latency, not a score.",
        "SM 上駐留的 warp 數占它最多能容納的比例：用來隱藏延遲的手段，不是分數。",
        "occupancy.md",
    ),
    Term(
        "register",
        "暫存器",
        "The fastest storage, private to each thread; a kernel's registers per thread limit the warps that fit.",
        "最快的儲存空間，每個執行緒私有；kernel 每個執行緒用的暫存器數，限制了能容納的 warp 數。",
        "occupancy.md",
    ),
    Term(
        "shared memory",
        "共享記憶體",
        "On-chip memory the threads of a block share; a large tile kept in it limits the blocks per SM.",
        "同一個 block 的執行緒共用的晶片上記憶體；放在裡面的 tile 越大，每個 SM 能容納的 block 越少。",
        "occupancy.md",
    ),
    Term("thread", "執行緒", "One lane of a kernel's work.", "kernel 工作中的一條執行路徑。", "occupancy.md"),
    Term(
        "warp",
        "warp",
        "32 threads that issue their instructions together.",
        "一起發出指令的 32 個執行緒。",
        "occupancy.md",
    ),
    Term(
        "warpgroup",
        "warpgroup",
        "Four warps that issue Hopper's `wgmma` together.",
        "一起發出 Hopper `wgmma` 指令的四個 warp。",
        "flash.md",
    ),
    Term(
        "SM",
        "SM",
        "A streaming multiprocessor: one of the GPU's processors, among which a grid's blocks are spread.",
        "串流多處理器：GPU 的處理器之一，grid 的 block 分散在它們之間執行。",
        "occupancy.md",
    ),
    Term(
        "Tensor Core",
        "Tensor Core",
        "The units that multiply small matrices; `wgmma` and `mma.sync` are their instructions.",
        "做小矩陣乘法的單元；`wgmma` 與 `mma.sync` 是它們的指令。",
        "flash.md",
    ),
    Term(
        "HBM",
        "HBM",
        "The GPU's device memory (high-bandwidth memory).",
        "GPU 的裝置記憶體（高頻寬記憶體）。",
        "counters.md",
    ),
    Term(
        "L2",
        "L2 快取",
        "The cache every SM shares (the level 2 cache), between the SMs and HBM.",
        "所有 SM 共用的快取，位於 SM 與 HBM 之間。",
        "counters.md",
    ),
    Term(
        "hardware counters",
        "硬體計數器",
        "What Nsight Compute reads from the GPU while it replays a kernel: bytes, instructions, busy cycles.",
        "Nsight Compute 重播 kernel 時從 GPU 讀到的數字：位元組、指令、忙碌的週期。",
        "counters.md",
    ),
    Term(
        "GEMM",
        "矩陣乘法",
        "A general matrix multiplication; attention has two (`q @ kᵀ`, `weights @ v`).",
        "一般矩陣乘法；attention 有兩個（`q @ kᵀ`、`weights @ v`）。",
        "naive.md",
    ),
    Term(
        "score matrix",
        "分數矩陣",
        "The [seq, seq] matrix of scaled `q @ kᵀ` per head, before the softmax.",
        "每個 head 在 softmax 之前、縮放過的 `q @ kᵀ`，大小為 [seq, seq]。",
        "naive.md",
    ),
    Term(
        "in place",
        "原位",
        "Writing into the input instead of a copy, as `masked_fill_` does.",
        "直接寫進輸入，而不是寫進一份複製，就像 `masked_fill_`。",
        "naive.md",
    ),
    Term(
        "fused",
        "融合",
        "Several steps in one kernel, so that what lies between them never reaches device memory.",
        "多個步驟合在一個 kernel 裡，中間結果因此不會寫回裝置記憶體。",
        "flash.md",
    ),
    Term(
        "tile",
        "tile",
        "The block of queries and keys a kernel works on at once.",
        "kernel 一次處理的一塊 query 與 key。",
        "flash.md",
    ),
    Term(
        "split-KV",
        "split-KV",
        "Flash's path that splits the keys among several blocks and combines their results in a second kernel.",
        "flash 把 key 分給多個 block 處理、再用第二個 kernel 合併結果的路徑。",
        "flash.md",
    ),
    Term(
        "backend",
        "後端",
        "One of SDPA's implementations: math, efficient, flash, cuDNN.",
        "SDPA 的實作之一：math、efficient、flash、cuDNN。",
        "dispatcher.md",
    ),
    Term(
        "dispatcher",
        "分派器",
        "SDPA's code that picks a backend for each call.",
        "SDPA 中替每次呼叫挑選後端的程式碼。",
        "dispatcher.md",
    ),
    Term(
        "trace",
        "trace",
        "The profiler's record of host operators and GPU kernels on one timeline (Kineto's format).",
        "profiler 把主機端運算子與 GPU kernel 記在同一條時間軸上的紀錄（Kineto 的格式）。",
        "method.md",
    ),
    Term(
        "snapshot",
        "快照",
        "A folder holding one measurement: its JSON and its traces.",
        "存放一次量測的資料夾：JSON 與 trace。",
        "reproduce.md",
    ),
    Term(
        "claim",
        "主張",
        "A statement the pages make, checked against every measurement: a truth must hold, an observation may not.",
        "頁面上的陳述，每次量測都會檢查：恆真的主張必須成立，觀察則不一定。",
        "reproducibility.md",
    ),
    Term(
        "drift",
        "漂移",
        "A measurement's departure from the committed baseline of its device class.",
        "一次量測偏離同一類裝置已提交基準的程度。",
        "reproducibility.md",
    ),
)


def zh_terms() -> tuple[str, ...]:
    """The Chinese terms written in Chinese characters (for the word breaking)."""
    return tuple(term.zh for term in TERMS if any("\u4e00" <= ch <= "\u9fff" for ch in term.zh))


_SEE = {"en": "see", "zh-TW": "詳見"}


def markdown(lang: str, titles: dict[str, str], href: Callable[[str], str]) -> str:
    """The glossary as a Markdown list in `lang` (a table is too narrow on a phone), each term with its
    Chinese, its meaning and a link to the page where it matters (`titles`: page file -> its title in
    the nav of that language; `href`: page file -> its URL from the glossary's page, since a measured
    block's Markdown is converted apart from the page and MkDocs does not resolve its .md links)."""
    zh = lang != "en"
    lines = []
    for term in sorted(TERMS, key=lambda term: term.en.lower()):
        meaning = term.zh_meaning if zh else term.en_meaning
        name = f"**{term.zh}**（{term.en}）" if zh and term.zh != term.en else f"**{term.en}**"
        if not zh and term.zh != term.en:
            name += f" · {term.zh}"
        where = f"[{titles.get(term.page, term.page)}]({href(term.page)})"
        see = _SEE.get(lang, _SEE["en"])
        lines.append(f"- {name}：{meaning}（{see}{where}）" if zh else f"- {name}: {meaning} ({see} {where})")
    return "\n".join(lines) + "\n"

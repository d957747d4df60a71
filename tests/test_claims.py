"""Claims: the files are well-formed, every committed snapshot satisfies the truths, and no claim
is vacuous: perturbing what it rests on changes its verdict."""

from __future__ import annotations

import copy
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from attn_examples.claims import check as claims
from attn_examples.claims.check import ClaimsError, load_claims
from attn_examples.render import article, metrics, views
from attn_examples.site.pages import committed_snapshots
from attn_examples.snapshot.schema import load_snapshot, snapshot_from_dict
from tests.conftest import REPO

H200 = REPO / "snapshots" / "nvidia-h200"
CPU = REPO / "snapshots" / "cpu"
CLAIMS = load_claims()
COMMITTED = committed_snapshots(REPO / "snapshots")


def test_the_claims_files_are_well_formed_and_cover_every_backend():
    ids = [c.id for c in CLAIMS]
    assert len(ids) == len(set(ids)) >= 25
    assert {c.kind for c in CLAIMS} == {"truth", "observation"}
    for variant in ("naive", "naive_inplace", "sdpa_math", "sdpa_efficient", "sdpa_flash", "sdpa_cudnn"):
        assert any(c.metric.split(".")[0] == variant or f".{variant}." in c.metric for c in CLAIMS), variant
    pages = {p.name for p in (REPO / "docs" / "en").glob("*.md")}
    assert {c.page for c in CLAIMS} <= pages, "a claims file must be named after its page"


@pytest.mark.parametrize(
    "text, message",
    [
        ("- id: x\n", "field 'statement' missing"),
        ("- {id: Bad, statement: {en: a, zh-TW: b}, metric: m, relation: '==', expected: 1}", "lowercase"),
        ("- {id: a, statement: {en: a}, metric: m, relation: '==', expected: 1}", "'en' and 'zh-TW'"),
        ("- {id: a, statement: {en: a, zh-TW: b}, metric: m, relation: '~', expected: 1}", "relation"),
        ("- {id: a, statement: {en: a, zh-TW: b}, metric: m, relation: within, expected: 1}", "tolerance"),
        (
            "- {id: a, statement: {en: a, zh-TW: b}, metric: m, relation: '>=', expected: 2, tolerance: 0.1}",
            "tolerance",
        ),
        (
            "- {id: a, statement: {en: a, zh-TW: b}, metric: m, relation: '==', expected: 1, colour: red}",
            "unknown field",
        ),
        (
            "- {id: a, statement: {en: a, zh-TW: b}, metric: m, relation: '==', expected: 1, applies: {gpu: x}}",
            "applies",
        ),
        (
            "- {id: a, statement: {en: a, zh-TW: b}, metric: m, relation: '==', expected: 1, applies: {device: [x]}}",
            "belongs to its baseline",
        ),
        ("- {id: a, kind: maybe, statement: {en: a, zh-TW: b}, metric: m, relation: '==', expected: 1}", "'kind'"),
        (
            "- {id: a, statement: {en: a, zh-TW: b}, metric: m, relation: '==', expected: {article: nope}}",
            "no figure 'nope'",
        ),
        ("- {id: a, statement: {en: a, zh-TW: b}, metric: m, relation: '==', expected: 1, article: 6}", "no figure 6"),
        (
            "- {id: a, statement: {en: a, zh-TW: b}, metric: m, relation: '==', expected: 1, applies: {requires: [x]}}",
            "neither a section",
        ),
        ("[", "not valid YAML (line 1)"),
    ],
)
def test_a_malformed_claims_file_names_the_claim_and_field(tmp_path, text, message):
    path = tmp_path / "page.yml"
    path.write_text(text)
    with pytest.raises(ClaimsError, match=re.escape(message)) as info:
        load_claims(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("folder", COMMITTED, ids=lambda p: p.name)
def test_every_truth_holds_on_every_committed_snapshot(folder):
    snap = load_snapshot(folder)
    verdicts = claims.check(snap, CLAIMS)
    assert all(v.ok for v in verdicts), claims.failure_report(snap, verdicts)
    assert sum(v.status == "pass" and v.claim.gates for v in verdicts) >= 5


def test_an_observation_never_fails_a_build_but_a_truth_does():
    truth, observation = (next(c for c in CLAIMS if c.kind == kind) for kind in ("truth", "observation"))
    assert not claims.Verdict(truth, "fail", 1, "").ok
    assert claims.Verdict(observation, "fail", 1, "").ok


def test_a_live_cpu_measurement_satisfies_the_cpu_claims(cpu_snapshot_dir):
    """CI measures on its own CPU (small shape) and holds the result to the claims that apply."""
    snap = load_snapshot(cpu_snapshot_dir)
    verdicts = claims.check(snap, CLAIMS)
    assert all(v.ok for v in verdicts), claims.failure_report(snap, verdicts)
    assert {v.claim.id for v in verdicts if v.status == "pass"} >= {
        "cpu-no-efficient",
        "cpu-no-cudnn",
        "memcpy-is-masked-fill-clone",
    }


def test_the_committed_cpu_snapshot_satisfies_the_cpu_claims():
    snap = load_snapshot(CPU)
    assert all(v.ok for v in claims.check(snap, CLAIMS))


# ---- no vacuous claim: perturb what each claim rests on, and it must fail -------------------------


def _steps(data: dict, variant: str) -> list[dict]:
    return data["variants"][variant]["profile"]["steps"]


def _main_index(data: dict, variant: str) -> int:
    gpu = _steps(data, variant)[0]["gpu"]
    kernels = [(i, a) for i, a in enumerate(gpu) if a["kind"] == "kernel"]
    med = {i: sorted(s["gpu"][i]["dur_us"] for s in _steps(data, variant))[1] for i, _ in kernels}
    return max(med, key=med.get)


def _edit_activities(data: dict, variant: str, kind: str, up: bool, pattern: str | None = None) -> None:
    for step in _steps(data, variant):
        gpu = step["gpu"]
        same = [a for a in gpu if a["kind"] == kind and (pattern is None or re.search(pattern, a["name"]))]
        if up or not same:
            template = copy.deepcopy(
                same[0]
                if same
                else gpu[0]
                if gpu
                else {
                    "name": "k",
                    "kind": kind,
                    "dur_us": 1.0,
                    "grid": [1, 1, 1],
                    "block": [32, 1, 1],
                    "registers_per_thread": 32,
                    "shared_memory_bytes": 0,
                    "est_occupancy_pct": 50.0,
                    "launch_api": "cudaLaunchKernel",
                    "bytes": None,
                    "stream": 7,
                }
            )
            template.update(kind=kind, dur_us=0.5)
            if kind == "kernel" and pattern is not None and not re.search(pattern, template["name"]):
                template["name"] = pattern.strip("^$") + "_injected"
            if kind == "kernel" and "cuda_core" in (pattern or ""):
                template["name"] = "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_ffma_injected"
            gpu.append(template)
        else:
            gpu.remove(same[-1])


def _scale_timing(data: dict, variant: str, field: str, factor: float) -> None:
    timing = data["variants"][variant]["timing"]
    if field == "peak_memory_bytes":
        timing[field] = int(timing[field] * factor)
    elif field in ("rel_error", "compile_s"):  # plain numbers, not statistics
        timing[field] *= factor
    else:  # every statistic, the blocks an interval is computed from among them
        stats = timing[field]
        for name in ("median", "iqr", "min", "max"):
            stats[name] *= factor
        stats["blocks"] = [b * factor for b in stats["blocks"]]


def _scale_point(point: dict, factor: float) -> None:
    """A sweep or training point's time, with the calls its interval is computed from."""
    point["device_us"] *= factor
    point["device_us_blocks"] = [b * factor for b in point["device_us_blocks"]]


def _winner(data: dict, name: str) -> str:
    """`winner` read off the (perturbed) data as metrics.py reads it: the available variant with the
    smallest device time."""
    if name != "winner":
        return name
    timed = {
        v: r["timing"]["device_us"]["median"]
        for v, r in data["variants"].items()
        if r["available"] and r["timing"] and r["timing"]["device_us"]
    }
    return min(timed, key=timed.get)


# A kernel name for each role of views.ROLES (checked below), for a kernel of that role to appear
_ROLE_NAMES = {
    "combine": "flash_fwd_splitkv_combine_kernel_injected",
    "attention": "flash_fwd_kernel_injected",
    "gemm": "nvjet_sm90_tst_injected",
    "fused": "triton_per_fused_injected",
    "convert": "copy_kernel_injected",
    "scale": "MulFunctor_injected",
    "fill": "FillFunctor_injected",
    "mask": "masked_fill_kernel_injected",
    "where": "where_kernel_injected",
    "add": "add_kernel_injected",
    "softmax": "softmax_injected",
    "isneginf": "isneginf_injected",
    "splitk": "splitKreduce_kernel_injected",
    "reduce": "reduce_kernel_injected",
    "other": "perturbed_injected",
}
assert all(views.kernel_role(name) == role for role, name in _ROLE_NAMES.items())
assert set(_ROLE_NAMES) == {role for role, _ in views.ROLES} | {"other"}


def _edit_role(data: dict, variant: str, role: str, up: bool) -> None:
    """One kernel of `role` more (a copy of one, or a new one) or one fewer, in every step."""
    for step in _steps(data, variant):
        gpu = step["gpu"]
        same = [a for a in gpu if a["kind"] == "kernel" and views.kernel_role(a["name"]) == role]
        if up:
            kernels = [a for a in gpu if a["kind"] == "kernel"]
            template = copy.deepcopy(same[0] if same else kernels[0] if kernels else gpu[0])
            if not same:
                template["name"] = _ROLE_NAMES[role]
            gpu.append({**template, "kind": "kernel", "dur_us": 0.5})
        elif same:
            gpu.remove(same[-1])


_SCALABLE_TIMING = ("device_us", "host_us", "host_first_us", "peak_memory_bytes", "rel_error", "compile_s")


def _scale_variant_value(data: dict, variant: str, metric: str, factor: float) -> None:
    """Move one variant's value of `metric` by `factor` (timing values), else one step (counts)."""
    if metric in _SCALABLE_TIMING:
        return _scale_timing(data, variant, metric, factor)
    return _perturb_variant(data, variant, metric, factor > 1)


def _toward_launch(data: dict, variant: str, up: bool) -> None:
    """up: the variant becomes launch-bound (its host time 1000x longer: the host cannot keep up); down:
    it stops being (its host time 1000x shorter, every kernel's grid 100x wider, off the grid floor too)."""
    if data["variants"][variant]["timing"].get("host_us"):
        _scale_timing(data, variant, "host_us", 1e3 if up else 1e-3)
    if not up:
        for step in _steps(data, variant):
            for a in step["gpu"]:
                if a["kind"] == "kernel" and a["grid"]:
                    a["grid"] = [a["grid"][0] * 100, *a["grid"][1:]]


def _perturb_regime(data: dict, variant: str, field: str, up: bool, target: object = None) -> None:
    if field in ("us_per_activity", "busy_share"):  # the device time they are read against
        factor = 3.0 if up == (field == "us_per_activity") else 1 / 3
        return _scale_timing(data, variant, "device_us", factor)
    if field == "longest_us":
        for step in _steps(data, variant):
            for a in step["gpu"]:
                a["dur_us"] *= 3.0 if up else 1 / 3
        return None
    if field == "roof_share":  # the counters' kernel time, the other way
        for k in _counter_kernels(data, variant):
            k["metrics"]["gpu__time_duration.sum"] *= 1 / 3 if up else 3.0
        return None
    if target is not None:  # up: the regime a claim expects; down: another
        return _make_regime(data, variant, target if up else ("grid" if target == "launch" else "launch"))
    # up: launch-bound; down: off the launch floor, and across the ridge from where it stood
    _toward_launch(data, variant, up)
    if not up and data.get("counters") and variant in (data["counters"].get("variants") or {}):
        before = metrics.metric(snapshot_from_dict(data), f"{variant}.regime")
        _perturb_counters(data, [variant, "intensity_per_ridge"], before == "memory")


def _make_regime(data: dict, variant: str, kind: str) -> None:
    """The variant put in one regime: launch (its host time 1000x), grid (its host time 1/1000, its
    kernels on one block), memory or compute (off both floors, its FLOPs per byte moved to that side)."""
    result = data["variants"][variant]
    if not result["available"] or not result.get("timing") or not result["timing"].get("host_us"):
        return None
    if kind == "launch":
        return _scale_timing(data, variant, "host_us", 1e3)
    _scale_timing(data, variant, "host_us", 1e-3)
    for step in _steps(data, variant):
        for a in step["gpu"]:
            if a["kind"] == "kernel" and a["grid"]:
                a["grid"] = [1, 1, 1] if kind == "grid" else [a["grid"][0] * 100, *a["grid"][1:]]
    if kind in ("memory", "compute"):
        if not (data.get("counters") and variant in (data["counters"].get("variants") or {})):
            # no counters to place it on the roofline (the compiled variants): out of the measurement
            result.update(available=False, unavailable_reason="perturbed", profile=None, timing=None)
            return None
        for _ in range(2):  # x81 each way, twice: across any ridge
            _perturb_counters(data, [variant, "intensity_per_ridge"], kind == "compute")
    return None


def _perturb_variant(data: dict, variant: str, metric: str, up: bool, target: object = None) -> None:
    variant = _winner(data, variant)
    name, _, arg = metric.partition("[")
    arg = arg.rstrip("]") or None
    result = data["variants"][variant]
    if name in ("regime", "longest_us", "us_per_activity", "busy_share", "roof_share"):
        return _perturb_regime(data, variant, name, up, target)
    if name == "intensity_per_ridge":
        return _perturb_counters(data, [variant, "intensity_per_ridge"], up)
    if name == "available":
        if result["available"]:
            result.update(available=False, unavailable_reason="perturbed", profile=None, timing=None)
        else:
            donor = next(v for v in data["variants"].values() if v["available"])
            result.update(
                available=True,
                unavailable_reason=None,
                profile=copy.deepcopy(donor["profile"]),
                timing=copy.deepcopy(donor["timing"]),
            )
        return
    if name in ("kernels", "gpu_activities"):
        return _edit_activities(data, variant, "kernel", up)
    if name in ("memcpys", "memsets"):
        return _edit_activities(data, variant, name[:-1], up)
    if name == "kernels_matching":
        gemms = [a for a in _steps(data, variant)[0]["gpu"] if a["kind"] == "kernel" and views.is_gemm(a["name"])]
        matching = [
            a for a in _steps(data, variant)[0]["gpu"] if a["kind"] == "kernel" and re.search(arg, a["name"], re.I)
        ]
        if up and not matching and gemms:  # a name fragment the GEMMs lack: give it to every GEMM
            for step in _steps(data, variant):
                for a in step["gpu"]:
                    if a["kind"] == "kernel" and views.is_gemm(a["name"]):
                        a["name"] = f"{arg}_{a['name']}"
            return None
        return _edit_activities(data, variant, "kernel", up, arg)
    if name in ("gemm_launch_api", "gemm_name", "gemm_share", "gemm_kernels", "gemm_us"):
        for step in _steps(data, variant):
            for a in step["gpu"]:
                if a["kind"] != "kernel" or not views.is_gemm(a["name"]):
                    continue
                if name == "gemm_launch_api":
                    a["launch_api"] = "cudaLaunchKernel" if up else "cuLaunchKernelEx"
                elif name == "gemm_name":
                    a["name"] = "renamed_" + a["name"]
                elif name in ("gemm_share", "gemm_us"):
                    a["dur_us"] *= 20.0 if up else 0.05
                else:
                    a["name"] = "not_a_matmul_kernel"
        return None
    if name == "longer_than_gemms":  # up: the other kernels 1e4x longer; down: the GEMMs 1e4x longer
        for step in _steps(data, variant):
            for a in step["gpu"]:
                if a["kind"] == "kernel" and views.is_gemm(a["name"]) is not up:
                    a["dur_us"] *= 1e4
        return None
    if name in ("gemm_names", "gemm_launch_apis"):  # up: the last GEMM differs from the first; down: all alike
        field = "name" if name == "gemm_names" else "launch_api"
        for step in _steps(data, variant):
            gemms = [a for a in step["gpu"] if a["kind"] == "kernel" and views.is_gemm(a["name"])]
            for a in gemms[1:]:
                a[field] = (
                    (gemms[0][field] + "_other" if field == "name" else "cuLaunchKernelEx_other")
                    if up
                    else gemms[0][field]
                )
        return None
    if name == "memsets_not_before_gemm":  # up: a memset at the end of the forward; down: every such one gone
        for step in _steps(data, variant):
            gpu = step["gpu"]
            if up:
                gpu.append({**copy.deepcopy(gpu[0]), "kind": "memset", "name": "Memset (Device)", "bytes": 4})
            else:
                step["gpu"] = [
                    a
                    for i, a in enumerate(gpu)
                    if a["kind"] != "memset"
                    or (i + 1 < len(gpu) and gpu[i + 1]["kind"] == "kernel" and views.is_gemm(gpu[i + 1]["name"]))
                ]
        return None
    if name == "op_share":  # up: the op takes as long as every other op together; down: it never runs
        for step in _steps(data, variant):
            ops = step["cpu_ops"]
            if up:
                total = sum(op["self_us"] for op in ops)
                ops[:] = [op for op in ops if op["name"] != arg]
                ops.append({"name": arg, "count": 1, "total_us": total, "self_us": total})
            else:
                ops[:] = [op for op in ops if op["name"] != arg]
        return None
    if name in ("peak_scores_beside_output", "peak_per_split_kv_partials"):
        return _scale_timing(data, variant, "peak_memory_bytes", 30.0 if up else 1 / 30)
    if name in ("memcpy_per_score", "memcpy_bytes", "memset_bytes"):
        kind = "memset" if name == "memset_bytes" else "memcpy"
        for step in _steps(data, variant):
            for a in step["gpu"]:
                if a["kind"] == kind and a["bytes"]:
                    a["bytes"] = int(a["bytes"] * (2 if up else 0.5))
        return None
    if name in ("tensor_core_kernels", "cuda_core_kernels"):
        pattern = "nvjet_sm90_tst" if name == "tensor_core_kernels" else "cuda_core"
        for step in _steps(data, variant):
            if up:
                step["gpu"].append(
                    {
                        **copy.deepcopy(step["gpu"][0]),
                        "kind": "kernel",
                        "dur_us": 0.5,
                        "name": "nvjet_sm90_tst_injected"
                        if pattern != "cuda_core"
                        else "sm80_xmma_gemm_f32f32_f32f32_f32_ffma_injected",
                    }
                )
            else:
                for a in step["gpu"]:
                    if re.search("ffma|f32f32" if pattern == "cuda_core" else "nvjet|wgmma|fmha|flash", a["name"]):
                        a["name"] = "renamed_kernel"
        return
    if name == "cpu_ops":  # up: a hundred more host calls; down: none
        for step in _steps(data, variant):
            for i, op in enumerate(step["cpu_ops"]):
                op["count"] = op["count"] + 100 if up and i == 0 else op["count"] if up else 0
        return
    if name == "transposes":
        for step in _steps(data, variant):
            step["transposes"] = max(0, step["transposes"] + (1 if up else -1))
        return
    if name == "op":
        for step in _steps(data, variant):
            ops = [op for op in step["cpu_ops"] if op["name"] == arg]
            if ops:
                ops[0]["count"] = max(0, ops[0]["count"] + (1 if up else -1))
            elif up:
                step["cpu_ops"].append({"name": arg, "count": 1, "total_us": 1.0, "self_us": 1.0})
        return
    if name == "role":
        return _edit_role(data, variant, arg, up)
    if name == "role_us":  # the roles' kernels 20x longer, or 20x shorter
        for step in _steps(data, variant):
            for a in step["gpu"]:
                if a["kind"] == "kernel" and re.fullmatch(arg, views.kernel_role(a["name"])):
                    a["dur_us"] *= 20.0 if up else 0.05
        return None
    if name in _SCALABLE_TIMING:
        return _scale_timing(data, variant, name, 3.0 if up else 1 / 3)
    if name == "stream_us":  # the longer of host and device time, round by round: both x3 / 3
        for field in ("device_us", "host_us"):
            if data["variants"][variant]["timing"].get(field):
                _scale_timing(data, variant, field, 3.0 if up else 1 / 3)
        return None
    if name in ("host_per_device", "host_first_per_device", "host_first_per_repeat"):  # the host time moves
        return _scale_timing(
            data, variant, "host_us" if name == "host_per_device" else "host_first_us", 100.0 if up else 0.01
        )
    if name == "launch_api":
        for step in _steps(data, variant):
            for a in step["gpu"]:
                if re.search(arg, a["name"]):
                    a["launch_api"] = (
                        "cudaLaunchKernel" if a["launch_api"] != "cudaLaunchKernel" else "cuLaunchKernelEx"
                    )
        return
    if name.startswith("main_"):
        index = _main_index(data, variant)
        for step in _steps(data, variant):
            kernel = step["gpu"][index]
            field = name[len("main_") :]
            if field in ("registers", "theoretical_occupancy_pct"):
                kernel["registers_per_thread"] += 1 if up else -1
            elif field == "threads":
                kernel["block"] = [kernel["block"][0] * (2 if up else 1) // (1 if up else 2), 1, 1]
            elif field == "occupancy_pct":  # one step of 8 of an SM's 64 warps
                kernel["est_occupancy_pct"] += 12.5 if up else -12.5 if kernel["est_occupancy_pct"] >= 12.5 else 12.5
            elif field == "launch_api":
                kernel["launch_api"] = "cudaLaunchKernelExC"
            elif field == "dur_us":  # x3 / 3: the main kernel's own time in the trace
                kernel["dur_us"] *= 3.0 if up else 1 / 3
            elif field == "grid_capped_pct":  # up: a grid 1000x wider; down: a single block
                kernel["grid"] = [kernel["grid"][0] * 1000, 1, 1] if up else [1, 1, 1]
            elif field in ("grid_per_sm", "tiles_per_block", "grid_slot_share"):
                # x100 / 100: across half an SM's share from 2 blocks too, and across the SMs' room
                kernel["grid"] = [kernel["grid"][0] * 100 if up else max(1, kernel["grid"][0] // 100), 1, 1]
            elif field in ("resident_warps", "blocks_per_sm"):  # up: few registers, no shared memory; down: the most
                kernel.update(registers_per_thread=32 if up else 255, shared_memory_bytes=0 if up else 200_000)
            elif field == "smem_bytes":  # x4 / 4: across the 48 KiB default from either side
                kernel["shared_memory_bytes"] = (
                    kernel["shared_memory_bytes"] * 4 if up else kernel["shared_memory_bytes"] // 4
                )
            elif field == "theoretical_limit":  # few registers, a large shared-memory block: the limit moves
                kernel.update(registers_per_thread=32, shared_memory_bytes=200_000)
            elif field == "role":
                if not up:  # the main kernel's name no longer says what it does
                    kernel["name"] = _ROLE_NAMES["other" if views.kernel_role(kernel["name"]) != "other" else "softmax"]
            elif field == "name":
                quoted = article.QUOTES.get(f"main_kernel.{variant}")
                if up and quoted is not None and kernel["name"] != quoted.text:
                    kernel["name"] = quoted.text  # the article's own kernel
                else:
                    kernel["name"] = "zz_" + kernel["name"].replace("sm90", "sm80").replace(
                        "fmha_cutlass", "fmha_other"
                    ).replace("wgmma", "wmma").replace("cga1x1x1", "cga2x1x1")
        if name == "main_role" and up:  # another kernel, of another role, takes the longest time
            role = views.kernel_role(_steps(data, variant)[0]["gpu"][index]["name"])
            others = [
                i
                for i, a in enumerate(_steps(data, variant)[0]["gpu"])
                if a["kind"] == "kernel" and views.kernel_role(a["name"]) != role
            ]
            if not others:
                return _perturb_variant(data, variant, metric, False)
            for step in _steps(data, variant):
                step["gpu"][others[0]]["dur_us"] = 3.0 * step["gpu"][index]["dur_us"]
        return
    raise AssertionError(f"no perturbation for metric {metric!r}")


def _sweep_rows(points: list[dict]) -> list[list[dict]]:
    """The measured points of one variant, one row per head dimension, shortest length first."""
    measured = [p for p in points if p["available"]]
    return [
        sorted((p for p in measured if p["head_dim"] == d), key=lambda p: p["seq_len"])
        for d in sorted({p["head_dim"] for p in measured})
    ]


def _perturb_sweep(data: dict, parts: list[str], up: bool) -> None:
    if parts[0] == "ratio":  # sweep.ratio.<v>.<s>.<d>.<s>.<d>.<field>: numerator one way,
        _perturb_sweep(data, [parts[1], parts[2], parts[3], parts[6]], up)
        return _perturb_sweep(data, [parts[1], parts[4], parts[5], parts[6]], not up)  # denominator the other
    if parts == ["split_seq_fp32_per_split"]:  # twice or half the batch: the two dtypes split apart
        data["sweep"]["batch"] = data["sweep"]["batch"] * 2 if up else max(1, data["sweep"]["batch"] // 2)
        return None
    points = [p for p in data["sweep"]["points"] if p["variant"] == parts[0]]
    if len(parts) == 2:
        measured = [p for p in points if p["available"]]
        if parts[1] == "kernel_growth":  # up: the largest count grows; down: every point launches the same
            if up:
                max(measured, key=lambda p: p["kernels"])["kernels"] += 1
            else:
                least = min(p["kernels"] for p in measured)
                for p in measured:
                    p["kernels"] = least
            return
        if parts[1] in ("grows_at", "grows_at_per_split"):
            # up: the count first grows one length later; down: one length earlier (in every head dimension)
            for row in _sweep_rows(points):
                first = next((i for i, p in enumerate(row) if p["kernels"] > row[0]["kernels"]), None)
                if first is None:
                    continue
                if up:
                    for p in row[first:]:
                        if p["kernels"] == row[first]["kernels"]:
                            p["kernels"] = row[0]["kernels"]
                elif first > 1:
                    row[first - 1]["kernels"] = row[first]["kernels"]
            return
        if parts[1] == "gemm_main_points":  # one point's longest kernel becomes a GEMM, or stops being one
            gemm_names = [
                a["name"]
                for r in data["variants"].values()
                if r["available"]
                for s in r["profile"]["steps"][:1]
                for a in s["gpu"]
                if a["kind"] == "kernel" and views.is_gemm(a["name"])
            ]
            for p in measured:
                if p["main_kernel"] and views.is_gemm(p["main_kernel"]) != up:
                    p["main_kernel"] = (
                        (gemm_names[0] if gemm_names else _ROLE_NAMES["gemm"]) if up else _ROLE_NAMES["other"]
                    )
                    break
            return
        for p in measured:
            if parts[1] in ("max_kernels", "min_kernels"):
                p["kernels"] += 1 if up else -1
            elif parts[1] == "best_tflops_fraction":
                p["tflops"] *= 3.0 if up else 1 / 3
            else:
                raise AssertionError(f"no perturbation for sweep.{'.'.join(parts)}")
        return
    point = next(p for p in points if str(p["seq_len"]) == parts[1] and str(p["head_dim"]) == parts[2])
    field = parts[3]
    if field == "available":
        if point["available"]:
            point.update(available=False, reason="perturbed")
        else:
            donor = next(p for p in points if p["available"])
            point.update({k: v for k, v in donor.items() if k not in ("seq_len", "head_dim")})
    elif field == "main_launch_api":
        point[field] = "cuLaunchKernelEx"
    elif field == "main_occupancy_pct":
        point[field] = point[field] + 12.5 if up else max(point[field] - 12.5, 0) or 6.0
    elif field == "main_grid_per_sm":  # x10 / 10: across one block per SM from either side
        point["main_grid_blocks"] = max(1, round(point["main_grid_blocks"] * (10 if up else 0.1)))
    else:
        field = "tflops" if field == "tflops_fraction" else field  # over the sweep's own matmul peak
        value = point[field] * (3 if up else 1 / 3)
        point[field] = round(value) if isinstance(point[field], int) else value


def _perturb_training(data: dict, parts: list[str], up: bool) -> None:
    training = data["training"]
    measured = [p for p in training["points"] if p["available"]]
    if parts == ["inplace_raised"]:
        training["inplace_autograd"].update(raised=True, error="RuntimeError: perturbed", max_abs_grad_diff=None)
    elif parts == ["inplace_grad_diff"]:
        training["inplace_autograd"]["max_abs_grad_diff"] = 1e-3
    elif parts == ["fastest"]:
        _scale_point(min(measured, key=lambda p: p["device_us"]), 100)
    elif parts == ["fastest_as_forward"]:
        if up:  # the fastest training step falls behind: another variant trains fastest
            _scale_point(min(measured, key=lambda p: p["device_us"]), 100)
        else:  # the fastest forward among the variants trained falls behind
            forward = {p["variant"]: data["variants"][p["variant"]]["timing"]["device_us"]["median"] for p in measured}
            _scale_timing(data, min(forward, key=forward.get), "device_us", 100.0)
    elif parts[0] == "diff":  # training.diff.<a>.<b>.<field>: a one way, b the other
        _perturb_training(data, [parts[1], parts[3]], up)
        _perturb_training(data, [parts[2], parts[3]], not up)
    elif parts[1] == "step_per_forward":  # the step's time one way, the forward's the other
        _scale_point(next(p for p in training["points"] if p["variant"] == parts[0]), 3 if up else 1 / 3)
        _scale_timing(data, parts[0], "device_us", 1 / 3 if up else 3)
    else:
        point = next(p for p in training["points"] if p["variant"] == parts[0])
        if parts[1] == "device_us":
            _scale_point(point, 3 if up else 1 / 3)
        else:
            point[parts[1]] = point[parts[1]] + (1 if up else -1)


def _perturb_occupancy(data: dict, parts: list[str], up: bool) -> None:
    if parts == ["emulation_misses"]:
        kernel = next(a for a in _steps(data, "sdpa_flash")[0]["gpu"] if a["kind"] == "kernel")
        for step in _steps(data, "sdpa_flash"):
            for a in step["gpu"]:
                if a["name"] == kernel["name"]:
                    a["est_occupancy_pct"] += 10.0
    elif parts == ["driver_api_below_48k_read_nonzero"]:
        for result in data["variants"].values():
            for step in (result["profile"] or {}).get("steps", []):
                for a in step["gpu"]:
                    if (
                        a["kind"] == "kernel"
                        and a["launch_api"]
                        and not a["launch_api"].startswith("cuda")
                        and (a["shared_memory_bytes"] or 0) <= 49152
                    ):
                        a["est_occupancy_pct"] = 0.0
    elif parts == ["driver_api_below_48k_any_grid"]:
        # down: every driver-API launch within the default ceiling made a runtime-API one; up: every
        # runtime-API launch within it made a driver-API one
        def flip(api: str | None, smem: int | None) -> str | None:
            driver = bool(api) and not api.startswith("cuda")
            if (smem or 0) > 49152 or not api or driver is up:
                return api
            return "cuLaunchKernel" if up else "cudaLaunchKernel"

        for result in data["variants"].values():
            for step in (result["profile"] or {}).get("steps", []) if result["available"] else []:
                for a in step["gpu"]:
                    if a["kind"] == "kernel":
                        a["launch_api"] = flip(a["launch_api"], a["shared_memory_bytes"])
        for p in (data.get("sweep") or {}).get("points", []):
            if p["available"]:
                p["main_launch_api"] = flip(p["main_launch_api"], p["main_smem_bytes"])
    elif parts in (["unexplained_zero_readings"], ["smem_rule_errors"], ["decisive_kernels"]):
        # up: a kernel within the default ceiling, on a wide grid, reads 0% (unexplained, the ceiling rule
        # misses it) or is launched through the driver API (a kind the two rules disagree on)
        for result in data["variants"].values():
            steps = (result["profile"] or {}).get("steps", []) if result["available"] else []
            wide = [
                i
                for i, a in enumerate(steps[0]["gpu"] if steps else [])
                if a["kind"] == "kernel"
                and (a["shared_memory_bytes"] or 0) <= 49152
                and a["est_occupancy_pct"] >= 1.0
                and (a["launch_api"] or "").startswith("cuda")
            ]
            if up and wide:
                for step in steps:
                    kernel = step["gpu"][wide[0]]
                    if parts == ["decisive_kernels"]:
                        kernel["launch_api"] = "cuLaunchKernel"
                    else:
                        kernel["est_occupancy_pct"] = 0.0
                return
    elif parts == ["grid_zero_readings"]:  # down: every grid 1000x wider, so none is too small for a reading
        for result in data["variants"].values():
            for step in (result["profile"] or {}).get("steps", []) if result["available"] else []:
                for a in step["gpu"]:
                    if a["kind"] == "kernel" and a["grid"]:
                        a["grid"] = [a["grid"][0] * 1000, *a["grid"][1:]]
        for p in (data.get("sweep") or {}).get("points", []):
            if p["available"] and p["main_grid_blocks"]:
                p["main_grid_blocks"] *= 1000
    elif parts == ["ceiling_zero_readings"]:
        # down: every kernel above the default ceiling reads 12.5%; up: a kernel on a wide grid asks for 64 KiB
        # and reads 0%
        for result in data["variants"].values():
            steps = (result["profile"] or {}).get("steps", []) if result["available"] else []
            for step in steps:
                for a in step["gpu"]:
                    if a["kind"] == "kernel" and (a["shared_memory_bytes"] or 0) > 49152 and not up:
                        a["est_occupancy_pct"] = 12.5
            wide = [
                i
                for i, a in enumerate(steps[0]["gpu"] if steps else [])
                if a["kind"] == "kernel" and (a["shared_memory_bytes"] or 0) <= 49152 and a["est_occupancy_pct"] >= 1.0
            ]
            if up and wide:
                for step in steps:
                    step["gpu"][wide[0]].update(shared_memory_bytes=65536, est_occupancy_pct=0.0)
                return
        for p in (data.get("sweep") or {}).get("points", []):
            if p["available"] and (p["main_smem_bytes"] or 0) > 49152 and not up:
                p["main_occupancy_pct"] = 12.5
    elif parts == ["runtime_api_above_48k_read_zero"]:
        for p in data["sweep"]["points"]:
            if p["available"] and p["main_launch_api"] == "cudaLaunchKernel" and (p["main_smem_bytes"] or 0) > 49152:
                p["main_occupancy_pct"] = 12.5
    else:
        raise AssertionError(f"no perturbation for occupancy.{parts}")


_TENSOR_OPS = "tensor"  # stands for hardware.TENSOR_OPS[<the snapshot's dtype>]
_FP32_OPS = (
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
)
_DRAM = ("dram__bytes_read.sum", "dram__bytes_write.sum")
_COUNTER_SCALED = {  # counters field -> the raw ncu metrics it is computed from (scaled x3 or /3)
    "dram_per_qkvo": _DRAM,
    "dram_per_score": _DRAM,
    "dram_beyond_qkvo_per_score": _DRAM,
    "dram_per_fp32_score": _DRAM,
    "dram_bytes": _DRAM,
    "dram_read_per_qkv": ("dram__bytes_read.sum",),
    "dram_write_per_output": ("dram__bytes_write.sum",),
    "l2_write_per_output": ("lts__t_sectors_op_write.sum",),
    "main_fma_busy_pct": ("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",),
    "fp32_flops_per_causal": _FP32_OPS,
    "tensor_flops_per_causal": (_TENSOR_OPS,),
    "tensor_flops": (_TENSOR_OPS,),
    "flops_per_causal": (_TENSOR_OPS, *_FP32_OPS),
    "duration_us": ("gpu__time_duration.sum",),
    "surplus_band_tokens": (_TENSOR_OPS,),
    "padded_surplus_band_tokens": (_TENSOR_OPS,),
    "kernel_padded_surplus_band_tokens": (_TENSOR_OPS,),
    "kernel_tile_flops_share": (_TENSOR_OPS,),
    "busy_tensor_tflops": (_TENSOR_OPS,),
    "l2_surplus_spill_share": ("l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum",),
    "hbm_write_share": ("dram__bytes_write.sum",),
}
_COUNTER_FACTOR = {  # fields whose measured value sits further than x3 from the line the claims draw
    "l2_write_per_output": 10.0,  # the output's 4x: /3 stays above 1x
    "dram_per_score": 10.0,  # the fused kernels move a quarter of one score matrix
    "dram_beyond_qkvo_per_score": 10.0,  # a twentieth of one beyond q, k, v and the output
    "dram_per_fp32_score": 10.0,  # math moves about 11 float32 score matrices
}
_COUNTER_SHIFTED = {  # counters field -> (raw metric, amount added up / taken away down)
    "theoretical_vs_calculator": ("sm__maximum_warps_per_active_cycle_pct", 10.0),
    "main_tensor_busy_pct": ("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", 10.0),
}


def _counter_kernels(data: dict, variant: str, role: str | None = None) -> list[dict]:
    kernels = data["counters"]["variants"][variant]
    return [k for k in kernels if role is None or re.fullmatch(role, views.kernel_role(k["name"]))]


def _perturb_counters(data: dict, parts: list[str], up: bool, arg: str | None = None) -> None:
    from attn_examples.render import hardware

    if parts == ["score_per_l2"]:  # one score matrix over the L2: up, 4096x the batch; down, one short head
        if up:
            data["config"]["batch"] *= 4096
        else:
            data["config"].update(batch=1, heads=1, seq_len=128)
        return None
    if parts[0] == "ratio":  # numerator one way, denominator the other
        _perturb_counters(data, [parts[1], parts[3]], up)
        return _perturb_counters(data, [parts[2], parts[3]], not up)
    variant, field = _winner(data, parts[0]), parts[1]
    if field == "main_est_occupancy_pct":  # Kineto's side of the comparison
        return _perturb_variant(data, variant, "main_occupancy_pct", up)
    factor = 3.0 if up else 1 / 3
    if field == "intensity_per_ridge":
        # FLOPs over HBM bytes, over the ridge (the bf16 matmul roof over the copy roof): each of the
        # four moves x3 the same way, so the kernel moves x81 against the ridge
        for m in (k["metrics"] for k in _counter_kernels(data, variant)):
            for name in (hardware.TENSOR_OPS[data["config"]["dtype"]], *_FP32_OPS):
                m[name] *= factor
            for name in _DRAM:
                m[name] /= factor
        data["ceilings"]["bf16_matmul_tflops"] /= factor
        data["ceilings"]["copy_gbps"] *= factor
        return None
    if field == "bandwidth_share":  # the role's HBM bytes over its time, over the copy roof
        for m in (k["metrics"] for k in _counter_kernels(data, variant, arg)):
            for name in _DRAM:
                m[name] *= factor
            m["gpu__time_duration.sum"] /= factor
        data["ceilings"]["copy_gbps"] /= factor
        return None
    if field == "tensor_busy_pct":  # the roles' Tensor Core busy share: 10 points more, or none
        for m in (k["metrics"] for k in _counter_kernels(data, variant, arg)):
            name = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"
            m[name] = m[name] + 10.0 if up else 0.0
        return None
    if field == "wgmma_kernel_share":  # up: every kernel of the roles issues wgmma; down: none does
        for m in (k["metrics"] for k in _counter_kernels(data, variant, arg)):
            m["sm__inst_executed_pipe_tensor_op_gmma.sum"] = 1000.0 if up else 0.0
        return None
    if field == "fp32_roof_share":  # the roles' FP32 FLOPs over their time, over the FP32 matmul roof
        for m in (k["metrics"] for k in _counter_kernels(data, variant, arg)):
            for name in _FP32_OPS:
                m[name] *= factor
        data["ceilings"]["fp32_matmul_tflops"] /= factor
        return None
    for kernel in _counter_kernels(data, variant):
        m = kernel["metrics"]
        if field in _COUNTER_SCALED:
            scale = _COUNTER_FACTOR.get(field, 3.0)
            for name in _COUNTER_SCALED[field]:
                name = hardware.TENSOR_OPS[data["config"]["dtype"]] if name == _TENSOR_OPS else name
                m[name] *= scale if up else 1 / scale
        elif field in _COUNTER_SHIFTED:
            name, amount = _COUNTER_SHIFTED[field]
            m[name] = m[name] + amount if up else max(m[name] - amount, 0.0)
        elif field == "main_achieved_occupancy_pct":  # up: x3 (at most every warp); down: no warp active
            name = "sm__warps_active.avg.pct_of_peak_sustained_active"
            m[name] = min(m[name] * 3.0, 100.0) if up else 0.0
        elif field == "local_store_bytes":
            m["l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum"] = 4096.0 if up else 0.0
        elif field in ("gmma_instructions", "uses_gmma"):
            m["sm__inst_executed_pipe_tensor_op_gmma.sum"] = 1000.0 if up else 0.0
        elif field == "main_limiter":  # up: registers allow 8 blocks more (no longer a limit); down: shared memory does
            name = "launch__occupancy_limit_registers" if up else "launch__occupancy_limit_shared_mem"
            if m.get(name) is not None:
                m[name] += 8
        else:
            raise AssertionError(f"no perturbation for counters.{variant}.{field}")


def _perturb_trace(data: dict, variant: str, ops: str, up: bool, folder: Path) -> Path:
    """A copy of the snapshot folder whose trace of `variant` is changed, its root returned: up, every
    host op named `ops` renamed (nothing it launched lies inside one); down, one such op spanning each
    profiled step (everything lies inside one)."""
    root = Path(tempfile.mkdtemp(prefix="perturbed-trace-"))
    shutil.copytree(folder, root, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".lock"))
    path = root / data["variants"][variant]["profile"]["trace_file"]
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        trace = json.load(fh)
    events = trace["traceEvents"]
    if up:
        for e in events:
            if e.get("cat") == "cpu_op" and re.fullmatch(ops, str(e.get("name"))):
                e["name"] = "perturbed::op"
    else:
        steps = [e for e in events if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")]
        events.extend({**e, "cat": "cpu_op", "name": ops.replace("\\", "")} for e in steps)
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        json.dump(trace, fh)
    return root


_RATIO_FACTOR = {  # timed ratios whose measured value sits further than x9 from the line the claims draw
    "ratio.sdpa_math.sdpa_efficient.device_us": 10.0,  # math takes about 12x efficient's time
}


def perturb(data: dict, key: str, up: bool, target: object = None, folder: Path | None = None) -> Path | None:
    """Change the snapshot values that `key` is computed from (`target`: the value a claim on a
    categorical metric expects, where up should reach it). A metric read from a trace changes a copy
    of the snapshot's `folder`: its root is returned (None otherwise)."""
    head, _, arg = key.partition("[")
    arg = arg[:-1] if arg else None
    parts = head.split(".")
    if parts[-1] == "memsets_outside_op" and len(parts) == 2 and arg:
        assert folder is not None, f"{key} is read from a trace: perturbing it needs the snapshot's folder"
        return _perturb_trace(data, parts[0], arg, up, folder)
    if parts[0] == "sweep":
        _perturb_sweep(data, parts[1:], up)
    elif parts[0] == "training":
        _perturb_training(data, parts[1:], up)
    elif parts[0] == "occupancy":
        _perturb_occupancy(data, parts[1:], up)
    elif parts[0] == "counters":
        _perturb_counters(data, parts[1:], up, arg)
    elif key == "dispatch.auto":
        data["dispatch"]["auto_backend"] = "MATH"
    elif key == "dispatch.auto_is_fastest":
        # the variant the un-pinned call dispatches to runs 1e4x faster (it leads) or slower (it trails)
        variant = metrics.BACKEND_VARIANTS[data["dispatch"]["auto_backend"]]
        _scale_timing(data, variant, "device_us", 1e-4 if up else 1e4)
    elif key in ("device.sm", "device.cc", "device.arch", "device.mma"):  # onto the article's sm80 or off it
        provenance = data["provenance"]
        provenance["compute_capability"] = "9.0" if provenance["compute_capability"] == "8.0" else "8.0"
    elif key == "fastest.stream_as_device":
        # up: the device's fastest variant also the cheapest in a stream (its host time 1e-4x); down: its host
        # time 3x its device time, and the next variant's device time 1.5x the best's, its host time 1e-4x
        snap = snapshot_from_dict(data)
        best = metrics.metric(snap, "fastest.device_us")
        best_device = metrics.variant_metric(snap, best, "device_us")
        if up:
            _scale_timing(data, best, "host_us", 1e-4)
        else:
            _scale_timing(data, best, "host_us", 3 * best_device / metrics.variant_metric(snap, best, "host_us"))
            other = next(
                v for v, r in data["variants"].items() if r["available"] and v != best and r["timing"].get("host_us")
            )
            _scale_timing(data, other, "host_us", 1e-4)
            _scale_timing(
                data, other, "device_us", 1.5 * best_device / metrics.variant_metric(snap, other, "device_us")
            )
    elif parts[0] in ("fastest", "slowest") and parts[1] == "stream_us":
        # as for device time, host and device times together
        available = [v for v, r in data["variants"].items() if r["available"]]
        target = (
            "naive_inplace"
            if up
            else next((v for v in ("sdpa_flash", "sdpa_efficient") if v in available), available[0])
        )
        for field in ("device_us", "host_us"):
            if data["variants"][target]["timing"].get(field):
                _scale_timing(data, target, field, 1e-4 if parts[0] == "fastest" else 1e4)
    elif parts[0] in ("fastest", "slowest"):
        # up: an unfused variant takes the lead (fastest) or the tail (slowest); down: flash leads or
        # math trails (the article's own order), whichever is measured
        available = [v for v, r in data["variants"].items() if r["available"]]
        target = (
            (
                "naive_inplace"
                if up
                else next((v for v in ("sdpa_flash", "sdpa_efficient") if v in available), available[0])
            )
            if parts[0] == "fastest"
            else ("naive" if up else "sdpa_math")
        )
        _scale_timing(data, target, "device_us", 1e-4 if parts[0] == "fastest" else 1e4)
    elif parts[0] in ("lowest", "highest"):
        # up: the variant that has the lowest (highest) value loses it by far; down: the one ranked
        # last takes its place. The ranking is read off the (perturbed) data as metrics.py reads it.
        snap = snapshot_from_dict(data)
        ranked = {}
        for v, r in snap.variants.items():
            try:
                ranked[v] = metrics.variant_metric(snap, v, parts[1]) if r.available else None
            except metrics.UnknownMetric:
                pass
        ranked = sorted((v for v in ranked if ranked[v] is not None), key=ranked.get, reverse=parts[0] == "highest")
        worse = 1e4 if parts[0] == "lowest" else 1e-4
        _scale_variant_value(data, ranked[0] if up else ranked[-1], parts[1], worse if up else 1 / worse)
    elif head in ("regime.all", "regime.variants") and arg == "grid":
        # up: every variant off the launch floor with its kernels on one block each (grid-bound);
        # down: none (every activity 100x longer, every grid 100x wider)
        for v, r in data["variants"].items():
            if r["available"] and r.get("timing") and r["timing"].get("device_us"):
                _toward_launch(data, v, False)
                for step in _steps(data, v) if up else []:
                    for a in step["gpu"]:
                        if a["kind"] == "kernel" and a["grid"]:
                            a["grid"] = [1, 1, 1]
    elif head in ("regime.all", "regime.variants", "regime.share"):
        # up: every variant in that regime; down: none (launch-bound, or grid-bound for a claim on launch)
        for v, r in data["variants"].items():
            if r["available"] and r.get("timing") and r["timing"].get("device_us"):
                _make_regime(data, v, arg if up else ("grid" if arg == "launch" else "launch"))
    elif parts[0] == "config":
        config = data["config"]
        if parts[1] == "matches_article":
            config["dtype"] = "float16" if config["dtype"] == "bfloat16" else "bfloat16"
        elif parts[1] in ("seq_len", "head_dim"):  # up: 8x longer or wider; down: a short sequence, a narrow head
            config[parts[1]] = config[parts[1]] * 8 if up else {"seq_len": 128, "head_dim": 32}[parts[1]]
        elif parts[1] in (
            "score_bytes",
            "score_fp32_bytes",
            "score_per_l2",
            "score_fp32_per_l2",
            "split_kv_fill_share",
        ):
            # up: 64x the batch (and 64x the sequence against the L2: 4096x the scores); down: one short head
            if up:
                config["batch"] *= 64
                if parts[1].endswith("_per_l2"):
                    config["seq_len"] *= 64
            else:
                config.update(batch=1, heads=1, seq_len=128)
        else:
            raise AssertionError(f"no perturbation for metric {key!r}")
    elif parts[0] == "gap_share":
        # up: b's other activities stretched until a's extra time is half of what a's kernels of those
        # roles take beyond b's (a share of 2); down: a's other activities 20x longer (a share near 0)
        def ours(a: dict) -> bool:
            return a["kind"] == "kernel" and re.fullmatch(arg, views.kernel_role(a["name"])) is not None

        def sums(variant: str) -> tuple[float, float]:
            gpu = _steps(data, variant)[0]["gpu"]
            return sum(a["dur_us"] for a in gpu if ours(a)), sum(a["dur_us"] for a in gpu if not ours(a))

        if up:
            (a_r, a_o), (b_r, b_o) = sums(parts[1]), sums(parts[2])
            wanted = a_r + a_o - 0.5 * (a_r - b_r) - b_r  # b's other time that leaves a gap of half the roles'
            for step in _steps(data, parts[2]):
                for a in step["gpu"]:
                    if not ours(a) and b_o:
                        a["dur_us"] *= wanted / b_o
        else:
            for step in _steps(data, parts[1]):
                for a in step["gpu"]:
                    if not ours(a):
                        a["dur_us"] *= 20.0
    elif key in _RATIO_FACTOR:  # a ratio further than x9 from its line: each side moved by the factor
        metric, factor = key.split(".", 3)[3], _RATIO_FACTOR[key]
        _scale_timing(data, parts[1], metric, factor if up else 1 / factor)
        _scale_timing(data, parts[2], metric, 1 / factor if up else factor)
    elif parts[0] in ("ratio", "diff"):
        metric = key.split(".", 3)[3]
        _perturb_variant(data, parts[1], metric, up)  # numerator one way,
        _perturb_variant(data, parts[2], metric, not up)  # denominator the other
    else:
        variant, metric = key.split(".", 1)
        _perturb_variant(data, variant, metric, up, target)
    return None


_LOADED = {folder: load_snapshot(folder) for folder in COMMITTED}


def _snapshot_for(claim: claims.Claim) -> tuple[Path, str]:
    """A committed snapshot where the claim applies, one where it holds if there is one."""
    statuses = {folder: claims.evaluate(claim, snap).status for folder, snap in _LOADED.items()}
    for wanted in ("pass", "fail"):
        for folder, status in statuses.items():
            if status == wanted:
                return folder, status
    raise AssertionError(f"{claim.id}: applies to no committed snapshot ({statuses})")


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_perturbing_what_a_claim_rests_on_changes_its_verdict(claim):
    """A truth must be breakable; an observation must flip. Either way the claim says something."""
    folder, status = _snapshot_for(claim)
    if claim.gates:
        assert status == "pass", f"{claim.id} fails on {folder.name}"
    base = json.loads((folder / "snapshot.json").read_text())
    outcomes = []
    for up in (True, False):
        data = copy.deepcopy(base)
        root = perturb(data, claim.metric, up, claim.expected_value, folder)
        outcomes.append(claims.evaluate(claim, snapshot_from_dict(data, root)).status)
    flipped = "fail" if status == "pass" else "pass"
    assert flipped in outcomes, (
        f"{claim.id} on {folder.name}: no perturbation of {claim.metric} changes {status} ({outcomes})"
    )


# ---- drift and accept ----------------------------------------------------------------------------


@pytest.mark.parametrize("factor", [1.05, 1.3, 0.8])
def test_a_uniformly_slower_or_faster_gpu_is_not_drift(factor):
    base = json.loads((H200 / "snapshot.json").read_text())
    slower = copy.deepcopy(base)
    for result in slower["variants"].values():
        if result["available"]:
            _scale_timing(slower, result["id"], "device_us", factor)
    assert claims.drift(snapshot_from_dict(slower), snapshot_from_dict(base)) == []


def test_drift_flags_changed_structure_and_shares():
    base = json.loads((H200 / "snapshot.json").read_text())
    moved = copy.deepcopy(base)
    _scale_timing(moved, "sdpa_flash", "device_us", 1.25)
    _edit_activities(moved, "sdpa_math", "kernel", up=True)
    problems = claims.drift(snapshot_from_dict(moved), snapshot_from_dict(base))
    assert any("sdpa_flash: device-time share" in p for p in problems)
    assert any("sdpa_math: kernels 20 in the baseline, 21 here" in p for p in problems)


def _kernels(data: dict, variant_id: str) -> list[dict]:
    return [
        a for step in data["variants"][variant_id]["profile"]["steps"] for a in step["gpu"] if a["kind"] == "kernel"
    ]


def _main_kernel_of(data: dict, variant_id: str, change) -> None:
    """Apply `change` to the variant's longest kernel in every step (steps launch the same kernels)."""
    for step in data["variants"][variant_id]["profile"]["steps"]:
        kernels = [a for a in step["gpu"] if a["kind"] == "kernel"]
        change(max(kernels, key=lambda a: a["dur_us"]))


@pytest.mark.parametrize(
    "mutation, words",
    [
        (
            lambda d: _main_kernel_of(
                d,
                "sdpa_flash",
                lambda k: k.update(
                    name="fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<bfloat16_t>::Params)"
                ),
            ),
            "sdpa_flash: kernel 1 (flash_fwd_kernel): kernel family flash_fwd_kernel in the baseline, fmha_cutlassF",
        ),
        (
            lambda d: _main_kernel_of(d, "sdpa_cudnn", lambda k: k.update(registers_per_thread=64)),
            "sdpa_cudnn: kernel 1",
        ),
        (lambda d: _main_kernel_of(d, "sdpa_flash", lambda k: k.update(grid=[1, 1, 1])), "grid"),
        (
            lambda d: _main_kernel_of(d, "sdpa_efficient", lambda k: k.update(launch_api="cuLaunchKernelEx")),
            "launch API",
        ),
        (lambda d: d["variants"].pop("sdpa_efficient"), "sdpa_efficient: measured in the baseline, missing here"),
        (
            lambda d: _edit_activities(d, "sdpa_flash", "kernel", up=True),
            "sdpa_flash: kernels 1 in the baseline, 2 here",
        ),
        (lambda d: _scale_timing(d, "sdpa_cudnn", "device_us", 1.2), "sdpa_cudnn: device-time share moved"),
        (
            lambda d: d["config"].update(dtype="float16"),
            "configuration differs (dtype bfloat16 in the baseline, float16",
        ),
        (lambda d: d["config"].update(seq_len=2048), "configuration differs (seq_len 1024 in the baseline, 2048 here)"),
        (lambda d: d["provenance"].update(torch="2.99.0"), "software differs (torch"),
        (
            lambda d: d["dispatch"].update(auto_backend="FLASH_ATTENTION"),
            "un-pinned SDPA: ran CUDNN_ATTENTION in the baseline, FLASH_ATTENTION here",
        ),
    ],
)
def test_drift_names_what_changed(mutation, words):
    base = json.loads((H200 / "snapshot.json").read_text())
    live = copy.deepcopy(base)
    mutation(live)
    problems = claims.drift(snapshot_from_dict(live), snapshot_from_dict(base))
    assert any(words in p for p in problems), problems


def test_a_live_run_without_the_compiled_variants_is_not_drift():
    """The compiled variants come with --extended only: a default live run lacks them by design."""
    base = json.loads((H200 / "snapshot.json").read_text())
    live = copy.deepcopy(base)
    for variant_id in ("flex", "naive_compiled"):
        live["variants"].pop(variant_id)
    assert claims.drift(snapshot_from_dict(live), snapshot_from_dict(base)) == []


def test_accept_promotes_a_snapshot_with_its_traces(tmp_path):
    from attn_examples.site.cli import main

    assert main(["accept", str(H200), "--to", str(tmp_path / "baseline")]) == 0
    assert load_snapshot(tmp_path / "baseline") == load_snapshot(H200)


def _edited_copy(tmp_path: Path, name: str, edit) -> Path:
    """A copy of the H200 snapshot (traces included) with `edit` applied to its JSON."""
    folder = tmp_path / name
    shutil.copytree(H200, folder)
    data = json.loads((folder / "snapshot.json").read_text())
    edit(data)
    (folder / "snapshot.json").write_text(json.dumps(data))
    return folder


def _second_memcpy(data: dict) -> None:
    """Naive launches a second device-to-device copy: the truth 'naive-one-memcpy' breaks."""
    _edit_activities(data, "naive", "memcpy", up=True)


def test_check_cli_exits_nonzero_on_a_broken_claim(tmp_path, capsys):
    """A broken truth fails the check, naming it; a missed observation does not."""
    from attn_examples.site.cli import main

    assert next(c for c in CLAIMS if c.id == "naive-one-memcpy").gates
    assert not next(c for c in CLAIMS if c.id == "flash-one-kernel").gates
    # flash launching two kernels misses only observations (flash-one-kernel among them): the check passes
    observed = _edited_copy(
        tmp_path, "observation", lambda data: _edit_activities(data, "sdpa_flash", "kernel", up=True)
    )
    verdicts = {v.claim.id: v for v in claims.check(load_snapshot(observed), CLAIMS)}
    assert verdicts["flash-one-kernel"].status == "fail"
    assert all(v.ok for v in verdicts.values())
    capsys.readouterr()
    assert main(["check", str(observed)]) == 0
    assert "do not hold" not in capsys.readouterr().err
    # a second memcpy in naive breaks a truth: the check fails, naming it with both values
    broken = _edited_copy(tmp_path, "truth", _second_memcpy)
    assert main(["check", str(broken)]) == 1
    err = capsys.readouterr().err
    assert "claim 'naive-one-memcpy'" in err and "naive.memcpys = 2, expected == 1" in err
    assert "attn-examples accept" in err


def test_the_strict_build_fails_on_a_drifted_snapshot(tmp_path):
    """A snapshot where naive launched two copies (a truth broken): the site must refuse to publish it."""
    folder = _edited_copy(tmp_path, "snap", _second_memcpy)
    env = dict(
        os.environ,
        NO_MKDOCS_2_WARNING="1",
        ATTN_EXAMPLES_MEASURE="snapshot",
        ATTN_EXAMPLES_SNAPSHOT=str(folder),
        MKDOCS_JUPYTER_CACHE_DIR=str(tmp_path / "nb"),
    )
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0
    assert "claim 'naive-one-memcpy'" in done.stderr and "naive.memcpys = 2, expected == 1" in done.stderr
    assert "NVIDIA H200" in done.stderr


# ---- timed claims: decided by their interval ------------------------------------------------------


def _set_blocks(data: dict, variant: str, field: str, blocks: list[float]) -> None:
    stats = data["variants"][variant]["timing"][field]
    stats["blocks"] = list(blocks)
    ordered = sorted(blocks)
    stats.update(median=ordered[len(ordered) // 2], min=ordered[0], max=ordered[-1])


def _verdict(data: dict, claim_id: str) -> claims.Verdict:
    return claims.evaluate(next(c for c in CLAIMS if c.id == claim_id), snapshot_from_dict(data))


@pytest.mark.parametrize(
    "ratios, status",
    [
        ([1.6 + 0.01 * i for i in range(12)], "pass"),
        ([1.3 + 0.01 * i for i in range(12)], "fail"),
        ([1.35 + 0.03 * i for i in range(12)], "unsure"),  # 1.35 ... 1.68: straddles 1.5
    ],
)
def test_a_timed_claim_is_decided_by_the_interval_of_its_paired_blocks(ratios, status):
    data = json.loads((H200 / "snapshot.json").read_text())
    flash = [100.0 + i for i in range(12)]
    _set_blocks(data, "sdpa_flash", "host_first_us", flash)
    _set_blocks(data, "sdpa_cudnn", "host_first_us", [f * r for f, r in zip(flash, ratios)])
    verdict = _verdict(data, "cudnn-host-after-switch")
    assert verdict.status == status, verdict.reason
    assert "95% interval" in verdict.reason


def test_an_unsure_truth_does_not_fail_the_build_but_is_not_stated():
    data = json.loads((H200 / "snapshot.json").read_text())
    inplace = [100.0] * 12
    _set_blocks(data, "naive_inplace", "device_us", inplace)
    _set_blocks(
        data,
        "naive",
        "device_us",
        [100.0 * r for r in (0.9, 0.95, 0.98, 1.0, 1.02, 1.03, 1.05, 1.06, 1.08, 1.1, 1.12, 1.2)],
    )
    verdict = _verdict(data, "inplace-faster")
    assert verdict.claim.gates and verdict.status == "unsure" and verdict.ok


def test_a_ranking_within_the_noise_is_undecided():
    """cuDNN fastest, but flash's blocks overlap it: who is fastest cannot be said with confidence."""
    data = json.loads((H200 / "snapshot.json").read_text())
    cudnn = data["variants"]["sdpa_cudnn"]["timing"]["device_us"]["blocks"]
    _set_blocks(data, "sdpa_flash", "device_us", [b * (1.01 if i % 2 else 0.995) for i, b in enumerate(cudnn)])
    snap = snapshot_from_dict(data)
    from attn_examples.claims import plausible

    assert plausible.plausible(snap, "fastest.device_us") == frozenset({"sdpa_cudnn", "sdpa_flash"})
    for claim_id in ("cudnn-fastest", "fastest-as-article", "fastest-is-fused"):
        verdict = _verdict(data, claim_id)
        assert verdict.status == ("pass" if claim_id == "fastest-is-fused" else "unsure"), (claim_id, verdict.reason)


def test_an_exact_claim_has_no_interval():
    verdict = _verdict(json.loads((H200 / "snapshot.json").read_text()), "naive-one-memcpy")
    assert verdict.plausible is None and verdict.status == "pass"

"""The notebook page's frozen outputs: one run serves both languages; nothing else in it is trusted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attn_examples.site import notebook
from tests.conftest import REPO

EN = REPO / "docs" / "en" / "notebook.ipynb"
ZH = REPO / "docs" / "zh-TW" / "notebook.ipynb"


def _freeze(folder: Path, device: str = "NVIDIA H200", outputs: list | None = None) -> Path:
    """A frozen run as `attn-examples notebook` writes it: the English source with outputs."""
    nb = json.loads(EN.read_text(encoding="utf-8"))
    for i, cell in enumerate(c for c in nb["cells"] if c["cell_type"] == "code"):
        cell["outputs"] = (
            outputs
            if outputs is not None
            else [{"output_type": "stream", "name": "stdout", "text": [f"cell {i} says 3.14\n"]}]
        )
    nb["metadata"]["attn_examples"] = {
        "device": device,
        "executed_at": "2026-12-01T10:00:00+00:00",
        "git_commit": "0123456789abcdef",
    }
    folder.mkdir(parents=True, exist_ok=True)
    (folder / notebook.FROZEN).write_text(json.dumps(nb), encoding="utf-8")
    return folder


def _page(tmp_path: Path, source: Path, lang: str, snapshot: Path | None) -> dict:
    return json.loads(notebook.page_source(source, snapshot, lang, tmp_path / "cache").read_text(encoding="utf-8"))


def _printed(nb: dict) -> list[str]:
    return ["".join(o.get("text", "")) for c in nb["cells"] if c["cell_type"] == "code" for o in c["outputs"]]


def test_one_run_gives_both_languages_the_same_outputs(tmp_path: Path) -> None:
    snap = _freeze(tmp_path / "snap")
    en, zh = _page(tmp_path, EN, "en", snap), _page(tmp_path, ZH, "zh-TW", snap)
    assert _printed(en) == _printed(zh) and "cell 1 says 3.14\n" in _printed(en)
    assert "NVIDIA H200" in "".join(en["cells"][1]["source"]) and "一次執行的輸出" in "".join(zh["cells"][1]["source"])
    assert [c["cell_type"] for c in en["cells"]][2:] == [c["cell_type"] for c in json.loads(EN.read_text())["cells"]][
        1:
    ]


def test_without_a_run_the_page_says_so(tmp_path: Path) -> None:
    en = _page(tmp_path, EN, "en", tmp_path / "empty")
    assert "No outputs yet" in "".join(en["cells"][1]["source"]) and not any(_printed(en))


def test_outputs_of_other_code_are_not_shown(tmp_path: Path) -> None:
    snap = _freeze(tmp_path / "snap")
    changed = json.loads(EN.read_text(encoding="utf-8"))
    code = next(c for c in changed["cells"] if c["cell_type"] == "code")
    code["source"] = "import torch\nprint(torch.ones(3))\n"
    source = tmp_path / "changed.ipynb"
    source.write_text(json.dumps(changed), encoding="utf-8")
    page = _page(tmp_path, source, "en", snap)
    assert "Outputs not shown" in "".join(page["cells"][1]["source"]) and not any(_printed(page))


def test_comments_and_printed_words_do_not_count_as_code() -> None:
    assert notebook.code_signature('x = f(1)  # one\nprint("hello")\n') == notebook.code_signature(
        'x = f(1)  # 一\nprint("你好")\n'
    )
    assert notebook.code_signature("x = f(1)\n") != notebook.code_signature("x = f(2)\n")


@pytest.mark.parametrize(
    "output, field",
    [
        ({"output_type": "display_data", "data": {"text/html": "<script>alert(1)</script>"}}, "output_type"),
        ({"output_type": "error", "ename": "RuntimeError", "evalue": "boom", "traceback": []}, "output_type"),
        ({"output_type": "stream", "name": "stdout", "text": 42}, "text"),
    ],
)
def test_anything_but_plain_text_is_refused_naming_the_field(tmp_path: Path, output: dict, field: str) -> None:
    snap = _freeze(tmp_path / "snap", outputs=[output])
    with pytest.raises(notebook.NotebookError) as caught:
        notebook.load_frozen(snap)
    message = str(caught.value)
    assert str(snap / notebook.FROZEN) in message and f"outputs[0].{field}" in message and "\n" not in message


def test_a_device_name_is_escaped_in_the_banner(tmp_path: Path) -> None:
    snap = _freeze(tmp_path / "snap", device='<img src=x onerror="alert(1)">')
    banner = "".join(_page(tmp_path, EN, "en", snap)["cells"][1]["source"])
    assert "<img" not in banner and "&lt;img" in banner


def test_a_progress_bar_shows_its_last_frame(tmp_path: Path) -> None:
    snap = _freeze(
        tmp_path / "snap",
        outputs=[{"output_type": "stream", "name": "stderr", "text": "measuring 1/8\rmeasuring 8/8\ndone\r\nnext\n"}],
    )
    run = notebook.load_frozen(snap)
    assert run.outputs[0][0].text == "measuring 8/8\ndone\nnext\n"  # a shell's \r\n ends a line


def test_a_broken_file_is_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "snap"
    folder.mkdir()
    (folder / notebook.FROZEN).write_bytes(b"\xff\xfe not json")
    with pytest.raises(notebook.NotebookError, match=r"notebook\.ipynb: not a JSON notebook"):
        notebook.load_frozen(folder)


def test_printed_paths_leave_the_machine_behind() -> None:
    text = (
        f"{notebook.REPO}/snapshots/x | /home/ann/attn-examples-snapshots/y.json\n"
        "/opt/venv/lib/python3.12/site-packages/torch/profiler.py:224: UserWarning\n"
    )
    assert notebook.portable(text, home="/home/ann") == (
        "<repo>/snapshots/x | ~/attn-examples-snapshots/y.json\n<site-packages>/torch/profiler.py:224: UserWarning\n"
    )
    frozen = (REPO / "snapshots" / "nvidia-h200" / notebook.FROZEN).read_text(encoding="utf-8")
    assert "/root/" not in frozen and "/work/" not in frozen and "/opt/" not in frozen


def test_the_published_snapshots_run_is_of_this_notebooks_code(tmp_path: Path) -> None:
    """The site's default snapshot carries a frozen run, and the page shows it: a change to the
    notebook's code (or a formatter rewriting the frozen copy) hides the outputs until it runs again."""
    published = REPO / "snapshots" / "nvidia-h200"
    for source, lang in ((EN, "en"), (ZH, "zh-TW")):
        page = _page(tmp_path, source, lang, published)
        assert any(_printed(page)), f"{lang}: the frozen run's outputs are not shown"

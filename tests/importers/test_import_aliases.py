"""An import adds the names its mapping table knows of each accelerator record to that
record's `aliases`, editing nothing else of the file; /search then finds a part by them."""

from __future__ import annotations

import shutil
from pathlib import Path

from benchgraph.cli.imports import main
from benchgraph.importers.aliases import known_names, with_aliases, write_aliases

REPO = Path(__file__).resolve().parents[2]
H100 = (
    "id: nvidia-h100-sxm\nname: NVIDIA H100 SXM 80 GB\nvendor: nvidia\n# a comment\nmemory_gb: 80\n"
)


def test_the_mapping_s_names_of_a_part_become_its_aliases():
    text = with_aliases(H100, ["NVIDIA H100-SXM-80GB", "nvidia  h100 sxm 80 gb"])
    assert text == (
        "id: nvidia-h100-sxm\nname: NVIDIA H100 SXM 80 GB\naliases:\n"
        '  - "NVIDIA H100-SXM-80GB"\nvendor: nvidia\n# a comment\nmemory_gb: 80\n'
    )
    # again: nothing changes; a name added later joins those there, in order
    assert with_aliases(text, ["NVIDIA H100-SXM-80GB"]) == text
    more = with_aliases(text, ["H100 SXM5"])
    assert '  - "H100 SXM5"\n  - "NVIDIA H100-SXM-80GB"\nvendor: nvidia\n' in more
    assert more.count("aliases:") == 1 and more.endswith("# a comment\nmemory_gb: 80\n")


def test_an_import_writes_the_aliases_of_the_records_it_names(fixtures, tmp_path):
    out = tmp_path / "data"
    (out / "accelerators").mkdir(parents=True)
    shipped = REPO / "data" / "accelerators" / "nvidia-h100-sxm.yaml"
    stripped = with_aliases_removed(shipped.read_text(encoding="utf-8"))
    (out / "accelerators" / "nvidia-h100-sxm.yaml").write_text(stripped, encoding="utf-8")
    checkout = tmp_path / "mlperf"
    shutil.copytree(fixtures / "mlperf", checkout)
    assert (
        main(["import", "mlperf", str(checkout / "inference_results_v4.1"), "--out", str(out)]) == 0
    )
    written = (out / "accelerators" / "nvidia-h100-sxm.yaml").read_text(encoding="utf-8")
    assert 'aliases:\n  - "NVIDIA H100-SXM-80GB"\n' in written
    assert with_aliases_removed(written) == stripped  # nothing else of the file changed


def test_the_shipped_parts_carry_the_names_the_mapping_knows():
    """The shipped accelerator records are as an import leaves them."""
    copy = {
        p.name: p.read_text(encoding="utf-8")
        for p in (REPO / "data" / "accelerators").glob("*.yaml")
    }
    names = known_names()
    assert names["nvidia-h100-sxm"] == ["NVIDIA H100-SXM-80GB"]
    for name, text in copy.items():
        wanted = names.get(name[:-5])
        if wanted:
            assert with_aliases(text, wanted) == text, name


def with_aliases_removed(text: str) -> str:
    lines, out, skipping = text.splitlines(keepends=True), [], False
    for line in lines:
        if line.startswith("aliases:"):
            skipping = True
            continue
        if skipping and line.startswith("  - "):
            continue
        skipping = False
        out.append(line)
    return "".join(out)


def test_write_aliases_leaves_a_part_no_table_names(tmp_path):
    (tmp_path / "accelerators").mkdir()
    other = tmp_path / "accelerators" / "x-part.yaml"
    other.write_text("id: x-part\nname: X\n", encoding="utf-8")
    assert write_aliases(tmp_path) == []
    assert other.read_text(encoding="utf-8") == "id: x-part\nname: X\n"

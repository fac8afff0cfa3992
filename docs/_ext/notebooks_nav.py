"""MkDocs hooks (see mkdocs.yml): the stored notebooks in the navigation.

mkdocs-jupyter mounts the repository's ``notebooks/`` folder at ``notebooks/`` of the
site. Every ``notebooks/*.ipynb`` joins the "Notebooks" section of the navigation, in
file-name order (``01_...``, ``02_...``), titled by its first Markdown heading; the
section's overview page lists them where it says ``<!-- notebooks -->``. A notebook
added to the folder appears without editing mkdocs.yml.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

SECTION = "Notebooks"
MARKER = "<!-- notebooks -->"
HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.M)


def _notebooks(config) -> list[tuple[str, str]]:
    """``(title, docs path)`` of every stored notebook, in file-name order."""
    folder = Path(config["config_file_path"]).parent / "notebooks"
    out = []
    for path in sorted(folder.glob("*.ipynb")):
        title = path.stem.replace("_", " ")
        cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        for cell in cells:
            if cell.get("cell_type") == "markdown":
                source = "".join(cell.get("source", ""))
                match = HEADING.search(source)
                if match:
                    title = re.sub(r"[*_`]", "", match[1])
                break
        out.append((title, f"notebooks/{path.name}"))
    return out


def on_config(config):
    for entry in config["nav"] or []:
        if isinstance(entry, dict) and SECTION in entry:
            pages = entry[SECTION]
            listed = {
                str(v)
                for item in pages
                for v in (item.values() if isinstance(item, dict) else [item])
            }
            pages.extend({t: path} for t, path in _notebooks(config) if path not in listed)
            break
    return config


def on_page_markdown(markdown, page, config, files):
    if MARKER not in markdown:
        return markdown
    items = [f"* [{title}]({path})" for title, path in _notebooks(config)]
    # the overview page sits at the docs root, next to the mounted notebooks/ folder
    listing = "\n".join(items) if items else "No notebook is stored yet."
    return markdown.replace(MARKER, listing)

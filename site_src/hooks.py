"""MkDocs hooks: run the generator so that `mkdocs build` alone builds the whole site.

Generated pages and data are added as virtual files (nothing is written into the docs directory, so
`mkdocs serve` does not rebuild in a loop); big tables are put into their pages after Markdown and
search indexing (`on_page_context` at low priority); `mkdocs serve` also watches the data directories.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

try:
    from site_src.generate import ASSETS_DIR, generate
except ImportError:  # not installed with `pip install -e .`: use the checkout this file is in
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from site_src.generate import ASSETS_DIR, generate
from site_src.render import TEMPLATES_DIR
from site_src.sources import SiteDataError, SiteSources

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",  # no inline script, no inline event handler, no javascript: URL
        "style-src 'self' 'unsafe-inline'",  # Plotly and the theme set style attributes
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "worker-src 'self'",
        "object-src 'none'",
        "frame-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
    )
)
"""Every page's policy; a <meta> because GitHub Pages sets no headers. It comes first in <head>, before
anything it must govern."""
OPTIONAL_PAGES = frozenset({"policy-rules.md", "threat-model.md", "maintainers.md", "pull-request-flow.md"})
"""Hand-written pages other parts of the project provide; the nav leaves them out until they exist."""
OVERRIDES_DIR = Path(__file__).resolve().parent / "overrides"
_slots: dict[str, dict[str, str]] = {}


def _prune_nav(items: list[Any], docs_dir: Path) -> list[Any]:
    kept = []
    for item in items:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        if isinstance(value, list):
            value = _prune_nav(value, docs_dir)
            if value:
                kept.append({next(iter(item)): value} if isinstance(item, dict) else value)
        elif not (value in OPTIONAL_PAGES and not (docs_dir / value).is_file()):
            kept.append(item)
    return kept


def on_config(config: Any) -> Any:
    if config.nav:
        config.nav = _prune_nav(config.nav, Path(config.docs_dir))
    return config


def on_files(files: Files, config: Any) -> Files:
    sources = SiteSources.from_env(os.environ)
    hand_written = {f.src_uri for f in files}
    try:
        sources.require_data(os.environ)
        build = generate(sources, hand_written)
    except SiteDataError as exc:
        raise PluginError(f"site generator: {exc}") from None
    for item in build.files:
        if item.source is not None:
            files.append(File.generated(config, item.uri, abs_src_path=str(item.source)))
        else:
            files.append(File.generated(config, item.uri, content=item.content))
    _slots.clear()
    _slots.update(build.slots)
    return files


@event_priority(-100)  # after the search plugin has indexed the light Markdown page
def on_page_context(context: dict, page: Any, config: Any, nav: Any) -> dict:
    for name, html in _slots.get(page.file.src_uri, {}).items():
        page.content = page.content.replace(f"<!-- kb-slot:{name} -->", html, 1)
    return context


def with_policy(html: str) -> str:
    meta = f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">'
    return html.replace("<head>", f"<head>\n{meta}", 1)


def on_post_page(output: str, page: Any, config: Any) -> str:
    return with_policy(output)


def on_post_template(output_content: str, template_name: str, config: Any) -> str:
    return with_policy(output_content) if template_name.endswith(".html") else output_content  # 404.html


SOURCE_MAP_COMMENT = re.compile(rb"\n?(//# sourceMappingURL=\S+|/\*# sourceMappingURL=\S+ \*/)\s*$")


def _search_languages(config: Any) -> list[str]:
    search = config.plugins.get("material/search") or config.plugins.get("search")
    lang = getattr(search, "config", {}).get("lang") if search else None
    return [lang] if isinstance(lang, str) else list(lang or ["en"])


def prune_theme_assets(site_dir: Path, languages: list[str]) -> None:
    """Ship no source maps and no search language code the site does not use.

    The theme copies lunr's stemmers and the Japanese and Thai word segmenters (tinyseg 0.2 MB, wordcut
    0.7 MB) whatever the search language; English search needs none of them.
    """
    assets = site_dir / "assets"
    for map_file in [*assets.rglob("*.js.map"), *assets.rglob("*.css.map")]:
        map_file.unlink()
    for script in [*assets.rglob("*.js"), *assets.rglob("*.css")]:
        data = script.read_bytes()
        stripped = SOURCE_MAP_COMMENT.sub(b"\n", data)
        if stripped != data:
            script.write_bytes(stripped)
    if languages == ["en"]:
        shutil.rmtree(site_dir / "assets" / "javascripts" / "lunr", ignore_errors=True)


def on_post_build(config: Any) -> None:
    prune_theme_assets(Path(config.site_dir), _search_languages(config))


def on_serve(server: Any, config: Any, builder: Any) -> Any:
    for path in [*SiteSources.from_env(os.environ).watched(), TEMPLATES_DIR, ASSETS_DIR, OVERRIDES_DIR]:
        if path.exists():
            server.watch(str(path))
    return server

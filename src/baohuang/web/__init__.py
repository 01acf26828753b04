"""The browser client (网页版): static ES modules served by ``baohuang serve`` at ``/``.

No build step: ``static/`` holds ``index.html``, plain ES modules, ``style.css``
and the two string tables ``static/i18n/zh.js`` and ``static/i18n/en.js``.

>>> from baohuang.web import STATIC_DIR
>>> (STATIC_DIR / "index.html").is_file()
True
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

__all__ = ["STATIC_DIR"]

#: The directory the server mounts at ``/``.
STATIC_DIR: Final = Path(__file__).resolve().parent / "static"

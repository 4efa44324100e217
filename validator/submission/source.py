"""Where an external kernel lives: a file at a pinned commit of a public GitHub repository.

The schema has already held each field to its form (an `https://github.com/<owner>/<name>` URL, a 40-hex
commit, a relative POSIX path, a 64-hex sha256); this record only carries them and spells the addresses built
from them. No network here: `external.py` fetches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

GITHUB = "https://github.com/"
RAW_GITHUB = "https://raw.githubusercontent.com/"


@dataclass(frozen=True)
class KernelSource:
    """A kernel entry's `source`: the file that must be fetched, and the bytes it must hash to."""

    repository: str
    """`https://github.com/<owner>/<name>`, as the document writes it."""
    commit: str
    """Full 40-hex commit: a branch or tag could move after the check."""
    path: str
    """The file's path inside the repository at that commit (relative, POSIX)."""
    sha256: str
    """sha256 of the file's bytes; the fetched copy must match it before anything uses it."""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> KernelSource:
        """From a schema-valid `source` object (or a results record's copy of one)."""
        return cls(data["repository"], data["commit"], data["path"], data["sha256"])

    @property
    def owner_name(self) -> str:
        """`<owner>/<name>`."""
        return self.repository.removeprefix(GITHUB)

    @property
    def raw_url(self) -> str:
        """The file's bytes at the commit, as GitHub serves them."""
        return f"{RAW_GITHUB}{self.owner_name}/{self.commit}/{quote(self.path, safe='/')}"

    @property
    def blob_url(self) -> str:
        """The file's page at the commit, for people."""
        return f"{self.repository}/blob/{self.commit}/{quote(self.path, safe='/')}"

    @property
    def shown(self) -> str:
        """`<owner>/<name>@<commit>:<path>`: how messages name it."""
        return f"{self.owner_name}@{self.commit}:{self.path}"

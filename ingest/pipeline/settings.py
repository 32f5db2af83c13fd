"""PipelineSettings: one validated model per stage, composed; loadable from a TOML or JSON file.

Unknown keys are rejected at every level (StageSettings has extra="forbid"), so a typo in a
config file is a ConfigError naming the key, not a silently ignored option.

Example config (TOML):

    workers = 2            # worker processes; 0 = parse in this process (debugging)
    timeout = 300          # seconds per document before its worker is killed
    split_pages = 100      # a document over this many pages is read as page ranges on every worker

    [parse.ocr]
    mode = "auto"          # auto | always | never
    languages = "eng+hin+mar"

    [chunk]
    child_max_tokens = 300

    [enrich]
    sidecar_suffix = ".meta.json"

    [[enrich.rules]]
    pattern = "schemes/*"  # every PDF under a folder named schemes/
    metadata = { doc_type = "scheme" }
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from ingest.chunking.settings import ChunkSettings
from ingest.contracts.errors import ConfigError
from ingest.contracts.settings import StageSettings
from parsers.settings import ParseSettings

#: Bump when a change to parse/chunk/enrich code should make the next run reprocess every document.
PIPELINE_VERSION = "2"  # 2: section merging, heading rules, /Rotate frames (2026-11-29)


#: Languages the detector chooses from by default: the team's (en, hi, mr), other Indian
#: languages, and common European/Asian ones. Restricting the set avoids exotic guesses
#: (e.g. "lij", "pcm") on short or tabular text.
DEFAULT_LANGUAGES = (
    "en",
    "hi",
    "mr",
    "bn",
    "gu",
    "pa",
    "ta",
    "te",
    "kn",
    "ml",
    "or",
    "ur",
    "ne",
    "fr",
    "de",
    "es",
    "pt",
    "it",
    "nl",
    "ru",
    "ar",
    "zh",
    "ja",
    "ko",
)


class PathRule(StageSettings):
    """Metadata for every PDF whose absolute POSIX path matches `pattern` (fnmatch: `*` also
    crosses `/`). A pattern that starts with neither `/` nor `*` matches anywhere: `schemes/*`
    is read as `*/schemes/*`. Later rules override earlier ones; the sidecar file overrides all."""

    pattern: str = Field(min_length=1)
    metadata: dict[str, Any]


class EnrichSettings(StageSettings):
    pdf_info: bool = Field(default=True, description="copy the PDF info dictionary (title, author, ...) into metadata")
    sidecar_suffix: str = Field(default=".meta.json", description="`name.pdf` + this = the sidecar JSON file")
    rules: list[PathRule] = Field(default_factory=list)
    detect_language: bool = True
    languages: list[str] = Field(
        default_factory=lambda: list(DEFAULT_LANGUAGES),
        description="ISO 639-1 codes the language detector may answer; [] = all 97 py3langid languages",
    )


class StoreSettings(StageSettings):
    db: str = Field(default="ingest.db", description="database file path or SQLAlchemy URL")


#: Default `split_pages`. Below it the parts' overhead (each worker opens the file; the pages read
#: travel to the main process and on to the worker that assembles them) outweighs the gain.
SPLIT_PAGES = 100


class PipelineSettings(StageSettings):
    parse: ParseSettings = ParseSettings()
    chunk: ChunkSettings = ChunkSettings()
    enrich: EnrichSettings = EnrichSettings()
    store: StoreSettings = StoreSettings()
    workers: int | None = Field(
        default=None, ge=0, description="worker processes; None = os.cpu_count(); 0 = in-process"
    )
    timeout: float = Field(
        default=600.0,
        gt=0,
        le=7 * 24 * 3600,  # finite and within what setitimer takes: `inf` is a usage error, not a crash
        allow_inf_nan=False,
        description="seconds one document may take before it is failed",
    )
    memory_limit_mb: int | None = Field(
        default=None,
        ge=0,
        description="address space one worker process may use, in MiB (RLIMIT_AS); None = 80% of RAM shared "
        "by the workers, at least 2048; 0 = no cap. A document over it fails with `[parse] memory limit "
        "exceeded` and the run goes on. Not applied with workers = 0 (in-process)",
    )
    split_pages: int = Field(
        default=SPLIT_PAGES,
        ge=0,
        description="a document of more pages than this is read as page ranges by all the workers at once, "
        "then assembled (same output); only with 2 or more workers; 0 = never split",
    )

    @property
    def worker_count(self) -> int:
        return (os.cpu_count() or 1) if self.workers is None else self.workers

    @property
    def worker_memory_limit_mb(self) -> int:
        """The cap in MiB each worker runs under (0 = none): `memory_limit_mb`, or by default 80% of
        physical RAM divided by the worker count, never below 2048 (a worker's normal address
        space, glibc arenas and pdfium included, is well under that)."""
        if self.memory_limit_mb is not None:
            return self.memory_limit_mb
        try:
            ram_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1 << 20)
        except (ValueError, OSError, AttributeError):
            return 0
        return max(2048, int(0.8 * ram_mb / max(self.worker_count, 1)))

    def output_settings(self) -> dict[str, Any]:
        """The settings that change what is stored for a document (not workers, timeout or db)."""
        return {
            "parse": self.parse.model_dump(mode="json"),
            "chunk": self.chunk.model_dump(mode="json"),
            "enrich": {
                "pdf_info": self.enrich.pdf_info,
                "detect_language": self.enrich.detect_language,
                "languages": self.enrich.languages,
            },
        }

    def settings_hash(self) -> str:
        """Changes when output settings change; the next run then reprocesses the documents."""
        return _short_hash(self.output_settings())


def _short_hash(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def read_config_file(path: str | os.PathLike) -> dict[str, Any]:
    """The raw dict of a .toml or .json config file; ConfigError when it cannot be read."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ConfigError(f"cannot read config file: {error.strerror}", path=str(path)) from error
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(raw)
        else:
            try:
                import tomllib
            except ModuleNotFoundError:  # Python 3.10
                import tomli as tomllib  # type: ignore[no-redef]
            data = tomllib.loads(raw.decode("utf-8"))
    except Exception as error:  # TOMLDecodeError, JSONDecodeError, UnicodeDecodeError
        raise ConfigError(
            f"config file is not valid {'JSON' if path.suffix == '.json' else 'TOML'}: {error}", path=str(path)
        ) from error
    if not isinstance(data, dict):
        raise ConfigError("config file must hold a table/object at the top level", path=str(path))
    return data


def _merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def with_pins(settings: PipelineSettings, pins: dict[str, Any] | None) -> PipelineSettings:
    """`settings` with a document's pinned settings (chosen by `ingest reprocess`) on top: what a
    run processes that document with, and whose hash decides whether it changed."""
    if not pins:
        return settings
    return load_settings(overrides=pins, base=settings.model_dump(mode="json"))


def pins_from(overrides: dict[str, Any]) -> dict[str, Any]:
    """The part of `reprocess` options that is pinned to the document: output settings only
    (`workers` and `timeout` are about the run, not the document)."""
    return {key: value for key, value in overrides.items() if key not in ("workers", "timeout", "store")}


def merge_settings(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """Nested dicts merged, `overrides` winning key by key; neither input is changed."""
    return _merge(base, overrides)


def load_settings(
    config: str | os.PathLike | None = None, overrides: dict[str, Any] | None = None, base: dict[str, Any] | None = None
) -> PipelineSettings:
    """Settings from `base` (e.g. the settings stored with a document), then a config file, then
    `overrides` (command-line options, nested dicts like {"parse": {"ocr": {"mode": "never"}}})."""
    data = dict(base or {})
    if config is not None:
        data = _merge(data, read_config_file(config))
    data = _merge(data, overrides or {})
    try:
        return PipelineSettings.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(top)'}: {e['msg']}" for e in error.errors())
        raise ConfigError(f"invalid settings: {problems}", path=str(config) if config else None) from error

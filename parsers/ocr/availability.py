"""Is OCR possible on this machine: Tesseract on PATH with every requested language pack.

Kept apart from `parsers.ocr.tesseract` so a run can check its set-up before any work without
importing what reading pages needs: pytesseract imports pandas when it is installed (about
1.5 s of CPU), and numpy, Pillow and pypdfium2 come with the OCR code. The check itself is one
`tesseract --list-langs` subprocess (about 0.01 s of CPU), remembered per process.
"""

from __future__ import annotations

import re
import subprocess
import sys

from ingest.contracts.errors import OcrUnavailableError
from parsers.settings import OcrSettings

#: The executable pytesseract runs unless told otherwise (`pytesseract.pytesseract.tesseract_cmd`).
DEFAULT_TESSERACT_CMD = "tesseract"

#: A language line of `tesseract --list-langs`: "eng", "chi_sim", "script/Devanagari".
_LANGUAGE_LINE = re.compile(r"^[A-Za-z0-9_]+(/[A-Za-z0-9_]+)?$")

#: Seconds `tesseract --list-langs` may take before the install is called broken.
LIST_LANGS_TIMEOUT = 30.0

# (tesseract command, languages) pairs already found installed in this process: the check
# runs at the start of a run and again per document.
_VERIFIED: set[tuple[str, str]] = set()


def debian_package_for(language: str) -> str:
    """The Debian/Ubuntu package that ships a Tesseract traineddata, e.g. 'hin' -> 'tesseract-ocr-hin',
    'chi_sim' -> 'tesseract-ocr-chi-sim', 'script/Devanagari' -> 'tesseract-ocr-script-deva'."""
    if language.lower().startswith("script/"):
        script = language.split("/", 1)[1].lower()
        return f"tesseract-ocr-script-{script[:4]}"
    return "tesseract-ocr-" + language.lower().replace("_", "-")


def requested_languages(settings: OcrSettings) -> list[str]:
    """`settings.languages` split on '+' ('eng+hin+mar' -> ['eng', 'hin', 'mar'])."""
    return [part.strip() for part in settings.languages.split("+") if part.strip()]


def tesseract_command() -> str:
    """The executable OCR will run: pytesseract's `tesseract_cmd` when pytesseract is imported
    (a caller may have pointed it elsewhere), else its default. Read without importing
    pytesseract: nobody can have changed a module that was never imported."""
    module = sys.modules.get("pytesseract.pytesseract")
    return str(getattr(module, "tesseract_cmd", DEFAULT_TESSERACT_CMD))


def installed_languages(command: str) -> set[str]:
    """The language packs `command --list-langs` reports. Raises `OcrUnavailableError` when the
    executable cannot be started (not installed) or the listing fails (a broken install)."""
    try:
        listing = subprocess.run(
            [command, "--list-langs"],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=LIST_LANGS_TIMEOUT,
            check=False,
        )
    except OSError as error:
        raise OcrUnavailableError(
            "Tesseract is not installed or not on PATH; install it with "
            "`apt-get install tesseract-ocr` (or run with --ocr never)"
        ) from error
    except subprocess.TimeoutExpired as error:
        raise OcrUnavailableError(
            f"cannot list Tesseract languages: `{command} --list-langs` ran past {LIST_LANGS_TIMEOUT:g} s"
        ) from error
    if listing.returncode not in (0, 1):  # Tesseract 3.x exits 1 after listing
        said = (listing.stderr or listing.stdout).decode("utf-8", "replace").strip()
        raise OcrUnavailableError(
            f"cannot list Tesseract languages: `{command} --list-langs` exited with status "
            f"{listing.returncode}{': ' + said if said else ''}"
        )
    lines = listing.stdout.decode("utf-8", "replace").splitlines()
    return {line.strip() for line in lines if _LANGUAGE_LINE.match(line.strip())}


def check_ocr_available(settings: OcrSettings) -> None:
    """Raise `OcrUnavailableError` unless Tesseract runs and has every requested language.

    Meant to be called at the start of a run, so a missing package is reported in
    seconds rather than after an hour of parsing. Costs one short subprocess the first
    time; a success is remembered for the process (the parser checks per document).
    """
    settings = OcrSettings.resolve(settings)
    command = tesseract_command()
    key = (command, settings.languages)
    if key in _VERIFIED:
        return
    languages = requested_languages(settings)
    if not languages:
        raise OcrUnavailableError("no OCR language given; use e.g. --ocr-lang eng or eng+hin+mar")
    installed = installed_languages(command)
    missing = [lang for lang in languages if lang not in installed]
    if missing:
        packages = " ".join(debian_package_for(lang) for lang in missing)
        raise OcrUnavailableError(
            f"Tesseract language pack(s) not installed: {', '.join(missing)}; install with "
            f"`apt-get install {packages}` (installed: {', '.join(sorted(installed)) or 'none'})"
        )
    _VERIFIED.add(key)


def pytesseract_module():
    """pytesseract, imported on first use without pandas. pytesseract imports pandas whenever it
    is installed (about 1.5 s of CPU per process) for its DATAFRAME output, which this module never
    asks for (DICT output); so pandas is hidden while pytesseract is imported, unless something
    already imported it. The `None` entry in `sys.modules` makes `import pandas` raise
    ModuleNotFoundError, which pytesseract catches; it is removed again at once."""
    if "pytesseract" in sys.modules:
        return sys.modules["pytesseract"]
    hide_pandas = "pandas" not in sys.modules
    if hide_pandas:
        sys.modules["pandas"] = None  # type: ignore[assignment] - the documented import blocker
    try:
        import pytesseract
    finally:
        if hide_pandas and sys.modules.get("pandas", 0) is None:
            del sys.modules["pandas"]
    return pytesseract

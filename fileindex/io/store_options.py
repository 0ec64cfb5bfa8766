"""How to reach a store: endpoints and credentials the way users already give them.

Three sources, in this order:

1. Paimon's own option keys, as Java Paimon and pypaimon-rust take them (a table's or catalog's options,
   ``--storage-option KEY=VALUE``). Java Paimon maps ``s3.``, ``s3a.`` and ``fs.s3a.`` onto Hadoop's
   ``fs.s3a.`` keys and mirrors ``access-key``/``access.key``; likewise ``gs.``/``fs.gs.`` and ``azure.``/
   ``fs.azure.``/``fs.wasb.``; pypaimon-rust adds ``gcs.`` and ``abfs.``. So a key is its store's prefix and a
   name, and a name's dots and dashes are the same (``s3.path.style.access`` = ``s3.path-style-access`` =
   ``fs.s3a.path.style.access``). Keys of other stores, and names this reader has no use for (Hadoop's
   connection pool sizes), are left alone.
2. The standard environment, where an option does not say: ``AWS_ENDPOINT_URL_S3``/``AWS_ENDPOINT_URL``
   and ``AWS_REGION``/``AWS_DEFAULT_REGION``; ``STORAGE_EMULATOR_HOST`` (a GCS emulator, anonymous);
   ``AZURE_STORAGE_ACCOUNT_NAME``.
3. The credential chains of the client libraries (AWS variables, profiles and instance roles; Google's
   application default credentials; Azure's ``AZURE_STORAGE_*`` variables and managed identity), used
   whenever no credential is given explicitly.

Secrets are held as :class:`Secret`, whose ``repr`` and ``str`` are ``***``: a :class:`StoreOptions` can be
printed, logged or put in an ``explain()`` without showing one. :func:`scrub` takes them out of any text (a
client library's error message carries request URLs, and a SAS token rides in a URL's query).
"""
from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from fileindex.errors import UsageError
from fileindex.io.locations import Location
from fileindex.tokens import closest_name

# The option that lets a commit go to a store without conditional create: one writer at a time, by the user's word.
SINGLE_WRITER = "fileindex.commit.single-writer"
# The client's limits, any store (a duration: 500ms, 30s, 2min; a bare number is milliseconds, as Paimon reads one):
# how long a connection may take to open, an answer may stall (no byte for that long), a request may take in all
TIMEOUTS = {"fileindex.store.connect-timeout": "connect_timeout", "fileindex.store.read-timeout": "read_timeout",
            "fileindex.store.request-timeout": "request_timeout"}
_TIMEOUT_PREFIX = "fileindex.store."
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|s|min|h)?")
_SECONDS = {"ms": 0.001, "s": 1, "min": 60, "h": 3600, None: 0.001}

_PREFIXES = {  # a store -> the option prefixes that address it, longest first
    "s3": ("fs.s3a.", "s3a.", "s3."),
    "oss": ("fs.oss.", "oss."),
    "gcs": ("fs.gcs.", "fs.gs.", "gcs.", "gs."),
    "azure": ("fs.azure.", "fs.wasb.", "abfss.", "abfs.", "azure."),
}
_NAMES = {  # a store -> {a normalised option name: the StoreOptions field it sets}
    "s3": {"endpoint": "endpoint", "access_key": "access_key", "secret_key": "secret_key",
           "session_token": "session_token", "region": "region", "endpoint_region": "region",
           "path_style_access": "path_style", "connection_ssl_enabled": "ssl", "anonymous": "anonymous",
           "allow_anonymous": "anonymous"},
    "oss": {"endpoint": "endpoint", "accesskeyid": "access_key", "access_key": "access_key",
            "accesskeysecret": "secret_key", "secret_key": "secret_key", "securitytoken": "session_token",
            "region": "region", "path_style_access": "path_style"},
    "gcs": {"endpoint": "endpoint", "storage_root_url": "endpoint", "allow_anonymous": "anonymous",
            "auth_null_enable": "anonymous", "credential_path": "credentials_file",
            "application_credentials": "credentials_file", "auth_service_account_json_keyfile": "credentials_file",
            "token": "token", "oauth2_token": "token", "project_id": "project"},
    "azure": {"endpoint": "endpoint", "account_name": "account", "account_key": "account_key",
              "sas_token": "sas_token", "sas_fixed_token": "sas_token", "client_id": "client_id",
              "client_secret": "client_secret", "tenant_id": "tenant_id", "authority_host": "authority_host"},
}
_FLAGS = {"path_style", "ssl", "anonymous"}
# Hadoop's per-account Azure key: fs.azure.account.key.ACCOUNT.blob.core.windows.net (or .dfs.)
_ACCOUNT_KEY = re.compile(r"account\.key\.([a-z0-9]+)\.(?:blob|dfs)\.core\.windows\.net", re.IGNORECASE)


class Secret:
    """A credential: shown as ``***`` everywhere; :meth:`reveal` gives the value to a client library."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    def __str__(self) -> str:
        return "***"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __reduce__(self):  # a Spark task gets the value (it has to reach the store); nothing prints it
        return Secret, (self._value,)


@dataclass(frozen=True)
class StoreOptions:
    """What reaching one store takes. None means "not given": the client library's own default or chain."""

    store: str  # s3, gcs or azure
    endpoint: str | None = None  # scheme://host[:port], no trailing /
    region: str | None = None
    path_style: bool | None = None
    anonymous: bool = False
    access_key: Secret | None = None
    secret_key: Secret | None = None
    session_token: Secret | None = None
    account: str | None = None  # Azure
    account_key: Secret | None = None
    sas_token: Secret | None = None
    client_id: str | None = None
    client_secret: Secret | None = None
    tenant_id: str | None = None
    authority_host: str | None = None
    credentials_file: str | None = None  # GCS: a service account's JSON key file
    token: Secret | None = None  # GCS: an OAuth2 access token
    project: str | None = None
    s3_compatible: str | None = None  # "oss" for Alibaba OSS reached through its S3 API
    single_writer: bool = False  # commits allowed without conditional create (SINGLE_WRITER)
    connect_timeout: float | None = None  # seconds (TIMEOUTS); None: this reader's default
    read_timeout: float | None = None
    request_timeout: float | None = None

    def secrets(self) -> list[str]:
        """The secret values, for :func:`scrub`."""
        return [value.reveal() for value in (getattr(self, f.name) for f in fields(self))
                if isinstance(value, Secret) and value.reveal()]

    @property
    def allow_http(self) -> bool:
        return bool(self.endpoint and self.endpoint.startswith("http://"))


def store_options(location: Location, options: Mapping[str, str] | None = None,
                  environ: Mapping[str, str] = os.environ) -> StoreOptions:
    """The :class:`StoreOptions` of ``location``'s store from Paimon's option keys in ``options`` (other keys are
    ignored) and ``environ``; a UsageError in one line for a value that cannot be used (never showing a secret)."""
    if not location.is_object_store:
        raise UsageError(f"{location}: not an object store (s3://, gs://, abfs://...)")
    kind = "oss" if location.scheme == "oss" else location.store
    found: dict[str, object] = {}
    account_keys: dict[str, str] = {}
    for key, value in (options or {}).items():
        name = _name_under(kind, key)
        if name is None:
            continue
        if kind == "azure" and (match := _ACCOUNT_KEY.fullmatch(name)):
            account_keys[match.group(1).lower()] = str(value)
            continue
        normalised = re.sub(r"[.-]", "_", name.lower())
        target = _NAMES[kind].get(normalised)
        if target is not None:
            found[target] = _flag(key, value) if target in _FLAGS else str(value)
        else:
            _refuse_misspelt(kind, key, normalised)
    if promise := _option(options, SINGLE_WRITER):
        found["single_writer"] = _flag(SINGLE_WRITER, promise)
    for key, value in (options or {}).items():
        if key.startswith(_TIMEOUT_PREFIX):
            _refuse_unknown_timeout(key)
            found[TIMEOUTS[key]] = _duration(key, value)
    ssl = found.pop("ssl", True)
    _from_environment(location.store, found, environ)
    if location.store == "azure":
        account = location.account or found.get("account") or environ.get("AZURE_STORAGE_ACCOUNT_NAME")
        if account is None and len(account_keys) == 1:  # the one account a per-account key names
            account = next(iter(account_keys))
        found["account"] = account
        if account and "account_key" not in found and str(account).lower() in account_keys:
            found["account_key"] = account_keys[str(account).lower()]
    if found.get("endpoint"):
        found["endpoint"] = _endpoint(str(found["endpoint"]), bool(ssl))
    secret_fields = {f.name for f in fields(StoreOptions) if "Secret" in str(f.type)}
    values: dict[str, Any] = {name: Secret(str(value)) if name in secret_fields else value
                              for name, value in found.items() if value is not None}
    return StoreOptions(store=location.store, s3_compatible="oss" if kind == "oss" else None, **values)


# Keys that say how to reach a store, besides a store's prefix and a name: Hadoop's (fs.hdfs., ...) and ours
_OTHER_STORAGE_PREFIXES = ("fs.", "fileindex.commit.", _TIMEOUT_PREFIX)


def _refuse_unknown_timeout(key: str) -> None:
    if key not in TIMEOUTS:
        meant = closest_name(key, list(TIMEOUTS))
        raise UsageError(f"option {key}: not an option of this reader; the client's limits are "
                         f"{', '.join(TIMEOUTS)}" + (f"; did you mean {meant}?" if meant else ""))


def is_storage_key(key: str) -> bool:
    """Whether ``key`` is one of Paimon's keys for reaching a store (what ``--storage-option`` takes)."""
    lowered = key.lower()
    return lowered.startswith(_OTHER_STORAGE_PREFIXES) or any(lowered.startswith(prefix)
                                                             for prefixes in _PREFIXES.values() for prefix in prefixes)


def check_option_keys(keys: Iterable[str], *, others: Iterable[str] = (), given: str = "option") -> None:
    """Refuse, before any store is reached, the mistakes ``store_options`` refuses for the store it reaches, in any
    store's keys (``s3.endpont``, ``gcs.endpont``), and a key that is neither a storage key nor one of ``others``
    (``s3endpoint``, ``snapshto``): a UsageError naming the key meant, never a value. What ``--storage-option`` and
    the Spark data source's options get (``PaimonTable`` ignores keys that are not a store's: a catalog's)."""
    others = list(others)
    for key in keys:
        if key in others:
            continue
        if key.startswith(_TIMEOUT_PREFIX):
            _refuse_unknown_timeout(key)
        if not is_storage_key(key):
            meant = closest_name(key, others + _SPELT_KEYS)
            raise UsageError(f"{given} {key}: not a key of any store{' or this reader' if others else ''}"
                             + (f"; did you mean {meant}?" if meant else ""))
        for kind in _PREFIXES:
            name = _name_under(kind, key)
            if name is not None and not (kind == "azure" and _ACCOUNT_KEY.fullmatch(name)):
                normalised = re.sub(r"[.-]", "_", name.lower())
                if normalised not in _NAMES[kind]:
                    _refuse_misspelt(kind, key, normalised)


def _refuse_misspelt(kind: str, key: str, name: str) -> None:
    """A UsageError for a key a typo away from one of its store's names (``s3.endpont``, ``s3.pathstyle-acess``) or
    cut short of one (``s3.pathstyle`` for ``s3.path-style-access``), naming the one meant; any other name is left
    alone (a catalog's options carry Hadoop's, such as ``fs.s3a.connection.maximum``)."""
    from fileindex.tokens import one_edit_apart

    squashed = name.replace("_", "")  # (path.style, path-style and pathstyle are one spelling)
    meant = [known for known in _NAMES[kind] if known.replace("_", "").startswith(squashed)
             or one_edit_apart(squashed, known.replace("_", "")) or one_edit_apart(name, known)]
    if meant:
        prefix = key[:len(key) - len(name)]
        spelt = [prefix + known.replace("_", "-") for known in meant]
        raise UsageError(f"option {key}: not a key of this store; did you mean "
                         f"{spelt[0] if len(spelt) == 1 else 'one of ' + ', '.join(spelt)}?")


# each store's keys as Paimon's docs spell them (s3.endpoint, s3.path-style-access, ...), for naming the key meant
_SPELT_KEYS = [prefixes[-1] + name.replace("_", "-") for kind, prefixes in _PREFIXES.items()
               for name in _NAMES[kind]] + list(TIMEOUTS)


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret (as given, and URL-encoded as it appears in a query) replaced by ``***``: anywhere
    in the text, or, for a secret shorter than :data:`SHORT_SECRET` characters, only where it stands alone (not
    inside a longer run of letters and digits), lest every ``S`` of a message go for a one-letter secret."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        for form in {secret, urllib.parse.quote(secret, safe=""), urllib.parse.quote_plus(secret)}:
            if len(form) >= SHORT_SECRET:
                text = text.replace(form, "***")
            elif form:
                text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(form)}(?![A-Za-z0-9])", "***", text)
    return text


SHORT_SECRET = 8


def _name_under(kind: str, key: str) -> str | None:
    lowered = key.lower()
    return next((key[len(prefix):] for prefix in _PREFIXES[kind] if lowered.startswith(prefix)), None)


def _option(options: Mapping[str, str] | None, key: str) -> str | None:
    return None if options is None else options.get(key)


def _flag(key: str, value: object) -> bool:
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise UsageError(f"option {key}: {value!r} is not true or false")


def _duration(key: str, value: object) -> float:
    """Seconds of a duration as Paimon writes one (``30s``, ``500ms``, ``2min``; a bare number: milliseconds)."""
    match = _DURATION.fullmatch(str(value).strip().lower())
    seconds = float(match.group(1)) * _SECONDS[match.group(2)] if match else 0
    if seconds <= 0:
        raise UsageError(f"option {key}: {value!r} is not a duration above zero (e.g. 30s, 500ms, 2min)")
    return seconds


def _endpoint(value: str, ssl: bool) -> str:
    if "://" not in value:
        value = f"{'https' if ssl else 'http'}://{value}"
    split = urllib.parse.urlsplit(value)
    if split.scheme not in ("http", "https") or not split.hostname:
        raise UsageError(f"endpoint {value!r}: give http(s)://host[:port]")
    return value.rstrip("/")


def _from_environment(store: str, found: dict[str, object], environ: Mapping[str, str]) -> None:
    if store == "s3":
        found.setdefault("endpoint", environ.get("AWS_ENDPOINT_URL_S3") or environ.get("AWS_ENDPOINT_URL"))
        found.setdefault("region", environ.get("AWS_REGION") or environ.get("AWS_DEFAULT_REGION"))
    elif store == "gcs" and "endpoint" not in found and environ.get("STORAGE_EMULATOR_HOST"):
        found["endpoint"] = environ["STORAGE_EMULATOR_HOST"]
        found.setdefault("anonymous", True)  # an emulator takes no credentials

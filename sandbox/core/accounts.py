"""Per-account sizing and credentials.

Every numeric account id exists in the sandbox; its data is sized by an
:class:`AccountProfile` (the config's defaults unless the control API set one).
Unknown profile keys are kept in ``extra`` so resource plug-ins can read their own sizes
(``profile.size("chats", default)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields


@dataclass(frozen=True, slots=True)
class AccountProfile:
    earnings: int = 3000  # earnings rows in [epoch - history_days, epoch)
    history_days: float = 365.0
    posts: int | None = None  # default: derived from earnings (see sandbox.domain.world)
    chargebacks: int | None = None
    payout_requests: int | None = None
    tracking_links: int | None = None
    extra: dict = field(default_factory=dict)

    def size(self, name: str, default: int) -> int:
        value = getattr(self, name, None) if name in _FIELD_NAMES else self.extra.get(name)
        return default if value is None else int(value)

    def allows_ties(self) -> bool:
        """Whether rows may share a timestamp (plug-in size ``ties``, default off, so every
        other account keeps its data): live timelines lose their one-row-a-second cap and the
        posts of one second share one ``postedAtPrecise``. For cursor walk tests."""
        return bool(self.extra.get("ties", False))

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "extra"}
        out.update(self.extra)
        return out

    @classmethod
    def from_dict(cls, base: AccountProfile, values: dict) -> AccountProfile:
        known = {k: v for k, v in values.items() if k in _FIELD_NAMES and k != "extra"}
        extra = {**base.extra, **{k: v for k, v in values.items() if k not in _FIELD_NAMES}}
        current = {f.name: getattr(base, f.name) for f in fields(base) if f.name != "extra"}
        return cls(**{**current, **known}, extra=extra)


_FIELD_NAMES = {f.name for f in fields(AccountProfile)}


class AccountRegistry:
    """Profiles set through the control API and the set of rejected credentials."""

    def __init__(self, default: AccountProfile) -> None:
        self.default = default
        self._profiles: dict[int, AccountProfile] = {}
        self.rejected: set[int] = set()
        self.version = 0  # bumped on every change so caches keyed by it refresh

    def profile(self, account_id: int) -> AccountProfile:
        return self._profiles.get(account_id, self.default)

    def configure(self, account_id: int, values: dict) -> AccountProfile:
        profile = AccountProfile.from_dict(self.profile(account_id), values)
        self._profiles[account_id] = profile
        self.version += 1
        return profile

    def set_rejected(self, account_id: int, rejected: bool) -> None:
        (self.rejected.add if rejected else self.rejected.discard)(account_id)

    @staticmethod
    def token_for(account_id: int) -> str:
        return f"sandbox-{account_id}"

    def credentials_ok(self, account_id: int | None, authorization: str | None) -> bool:
        """Bearer ``sandbox-<account_id>``; for routes without an account any sandbox-<n>."""
        if not authorization or not authorization.startswith("Bearer "):
            return False
        token = authorization[7:].strip()
        if account_id is None:
            prefix, _, number = token.partition("-")
            return prefix == "sandbox" and number.isdigit() and int(number) not in self.rejected
        return token == self.token_for(account_id) and account_id not in self.rejected

    def reset(self) -> None:
        self._profiles.clear()
        self.rejected.clear()
        self.version += 1

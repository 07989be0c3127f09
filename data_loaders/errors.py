"""Errors raised by the dataset loaders."""
from __future__ import annotations


class DatasetUnavailableError(RuntimeError):
    """The data set needs a download and the download is not possible here.

    The message names the data set, the download size and what to do about it.

    >>> err = DatasetUnavailableError("ogbg-ppa", "about 1.4 GB", "no network")
    >>> err.dataset, err.download_size
    ('ogbg-ppa', 'about 1.4 GB')
    """

    def __init__(self, dataset: str, download_size: str | None, reason: str, hint: str = "") -> None:
        self.dataset = dataset
        self.download_size = download_size
        self.reason = reason
        size = f" ({download_size})" if download_size else ""
        message = (
            f"{dataset} is not on this machine and needs a download{size}, "
            f"which is not possible right now: {reason}. "
            "Connect to the internet and try again"
        )
        message += f", or {hint}." if hint else "."
        super().__init__(message)

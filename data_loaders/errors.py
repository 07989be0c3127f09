"""Errors raised by the dataset loaders."""
from __future__ import annotations


class DatasetUnavailableError(RuntimeError):
    """The data set needs a download and the download is not possible here.

    The message names the data set, the download size and what to do about it.

    ``advice`` says what to do about ``reason`` (by default: connect to the internet),
    ``hint`` what else works (e.g. placing the data set's folder by hand).

    >>> err = DatasetUnavailableError("ogbg-ppa", "about 1.4 GB", "no network")
    >>> err.dataset, err.download_size
    ('ogbg-ppa', 'about 1.4 GB')
    >>> str(DatasetUnavailableError("ogbg-ppa", None, "downloads are switched off", advice="Allow downloads"))
    'ogbg-ppa is not on this machine and needs a download, which is not possible right now: downloads are switched off. Allow downloads.'
    """

    def __init__(self, dataset: str, download_size: str | None, reason: str, hint: str = "",
                 advice: str = "Connect to the internet and try again") -> None:
        self.dataset = dataset
        self.download_size = download_size
        self.reason = reason
        size = f" ({download_size})" if download_size else ""
        message = f"{dataset} is not on this machine and needs a download{size}, which is not possible right now: " \
                  f"{reason}. {advice}"
        message += f", or {hint}." if hint else "."
        super().__init__(message)

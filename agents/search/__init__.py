"""Batched tree search over array trees (mctx's design, compiled with Numba): ``docs/search.md``."""

from agents.search.driver import SearchConfig, SearchResult, search

__all__ = ["SearchConfig", "SearchResult", "search"]

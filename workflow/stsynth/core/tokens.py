"""Moses tokenization of pair tables.

Token table schema (``resources/pairs/{year}/{dataset}.tokens.parquet``, row-aligned with the
pair table):

=======  ============  ===============================================
column   type          meaning
=======  ============  ===============================================
year     int16         as in the pair table
dataset  string        as in the pair table
line     int32         as in the pair table
tokens1  list<string>  Moses tokens of s1 (Spanish rules on es-en)
tokens2  list<string>  Moses tokens of s2
=======  ============  ===============================================
"""

from __future__ import annotations

from functools import lru_cache

import pandas as pd
from sacremoses import MosesTokenizer

TRACK_LANGUAGES = {"en": ("en", "en"), "es-en": ("es", "en")}


@lru_cache(maxsize=None)
def _moses(lang: str) -> MosesTokenizer:
    return MosesTokenizer(lang=lang)


def tokenize(
    sentence: str, lang: str = "en", aggressive_dash_splits: bool = False, escape: bool = False, lowercase: bool = True
) -> list[str]:
    text = sentence.lower() if lowercase else sentence
    return _moses(lang).tokenize(text, aggressive_dash_splits=aggressive_dash_splits, escape=escape)


def token_table(pairs: pd.DataFrame, **settings) -> pd.DataFrame:
    track = pairs["track"].iat[0] if len(pairs) else "en"
    lang1, lang2 = TRACK_LANGUAGES[track]
    return pd.DataFrame(
        {
            "year": pairs["year"].to_numpy(),
            "dataset": pairs["dataset"].to_numpy(),
            "line": pairs["line"].to_numpy(),
            "tokens1": [tokenize(s, lang1, **settings) for s in pairs["s1"]],
            "tokens2": [tokenize(s, lang2, **settings) for s in pairs["s2"]],
        }
    ).astype({"year": "int16", "dataset": "string", "line": "int32"})

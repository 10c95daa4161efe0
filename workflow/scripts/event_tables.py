import pandas as pd
import spacy

from stsynth.core.lexicon import load_wordnet
from stsynth.core.logs import log_to
from stsynth.core.progress import Progress
from stsynth.sts2017.events import WordNetAnimacy, event_table

log = log_to(snakemake.log[0])
settings = snakemake.params.settings
nlp = spacy.load(settings["parser"])
noun_animacy = WordNetAnimacy(load_wordnet(snakemake.params.nltk_data))
weak_verbs = set(settings["weak_verbs"])
tables = [pd.read_parquet(path) for path in snakemake.input.pairs]
with Progress(log, f"event tokens of {len(tables)} datasets", sum(map(len, tables)), "pairs") as progress:
    for path, pairs, output in zip(snakemake.input.pairs, tables, snakemake.output, strict=True):
        table = event_table(nlp, pairs, noun_animacy, weak_verbs)
        table.to_parquet(output, index=False)
        sentences = 2 * len(table)
        with_events = int((table["events1"].map(len) > 0).sum() + (table["events2"].map(len) > 0).sum())
        log.info(
            "%s: %d sentences, %d with an event token (%.1f%%), %d event tokens",
            path,
            sentences,
            with_events,
            100 * with_events / max(sentences, 1),
            int(table["events1"].map(len).sum() + table["events2"].map(len).sum()),
        )
        progress.advance(len(pairs))

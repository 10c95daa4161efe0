import pandas as pd
import spacy

from stsynth.core.lexicon import load_wordnet
from stsynth.core.logs import log_to
from stsynth.core.tokens import tokenize
from stsynth.sts2017.events import WordNetAnimacy, pair_documents, parse_corpus, read_bible, run_bible

log = log_to(snakemake.log[0])
settings = snakemake.params.settings
corpus = settings["corpus"]
parts = []
if corpus["kjv"]:
    parts.append(read_bible(run_bible(corpus["kjv"]["program"], corpus["kjv"]["passages"]), "kjv"))
    log.info("kjv: %d chapters", len(parts[-1]))
if snakemake.input.pairs:
    parts.append(pair_documents([pd.read_parquet(path) for path in snakemake.input.pairs]))
    log.info("pairs of %s: %d documents", corpus["pair_years"], len(parts[-1]))
documents = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
if documents.empty:
    raise ValueError("events.corpus: no document (kjv is null and pairs is false): the event embeddings need a corpus")
documents["document"] = range(len(documents))
documents = documents.astype({"document": "int32"})
documents.to_parquet(snakemake.output.documents, index=False)
nlp = spacy.load(settings["parser"])
chains, sentences = parse_corpus(
    nlp,
    documents,
    WordNetAnimacy(load_wordnet(snakemake.params.nltk_data)),
    set(settings["weak_verbs"]),
    lambda text: tokenize(text, **snakemake.params.tokenize),
    settings["coreference_window"],
    settings["batch_size"],
)
chains.to_parquet(snakemake.output.chains, index=False)
sentences.to_parquet(snakemake.output.sentences, index=False)

"""Translation (Apertium, Marian) and its cache, language identification, the en -> es -> en round trips
and the synthetic pairs made of them (read by the paragram models and the tuned encoders), the MT comparison."""

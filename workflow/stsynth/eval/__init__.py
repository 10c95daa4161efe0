"""Zero-shot evaluation of encoders on STS12-16 and STS-B as MTEB scores them (make eval), with its
embedding cache."""

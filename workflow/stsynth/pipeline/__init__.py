"""The workflow's decisions about itself: the plan (which files a job reads), the config and input checks,
overlays, Snakemake start-up, build-tree comparison, the conda env file, the `stsynth` command."""

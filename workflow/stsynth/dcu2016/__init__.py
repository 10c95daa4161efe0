"""The DCU-SEManiacs system (SemEval-2016 Task 1): the paragram sentence model and its export, TakeLab-style
features, the GradientBoostingRegressor fusion and what a fusion run reads, the organizers' baseline."""

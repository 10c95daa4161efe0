"""The regression head of the SemEval-2017 system (Tai et al.'s similarity model): its target
distribution, its prediction against a hand-computed example, training, the dev search and the files."""

import math

import numpy as np
import pytest
import torch

from stsynth.sts2017.head import (
    PairVectors,
    TaiHead,
    chosen_settings,
    dev_search,
    final_fit,
    fit,
    head_loss,
    load,
    predict,
    predict_test_sets,
    save,
    stack,
    target_distribution,
)

SETTINGS = {"hidden": 8, "learning_rate": 0.05, "lambda": 1e-5, "batch_size": 4, "epochs": 30, "seed": 3}


def test_target_distribution_puts_a_score_between_its_two_integers():
    target = target_distribution([3.6, 0.0, 5.0, 2.0, 4.25])
    np.testing.assert_allclose(target[0], [0, 0, 0, 0.4, 0.6, 0], atol=1e-7)
    np.testing.assert_allclose(target[1], [1, 0, 0, 0, 0, 0])
    np.testing.assert_allclose(target[2], [0, 0, 0, 0, 0, 1])
    np.testing.assert_allclose(target[3], [0, 0, 1, 0, 0, 0])
    np.testing.assert_allclose(target[4], [0, 0, 0, 0, 0.75, 0.25])
    np.testing.assert_allclose(target @ np.arange(6), [3.6, 0.0, 5.0, 2.0, 4.25], atol=1e-6)  # the mean is the score
    for bad in ([5.5], [-0.1], [float("nan")]):
        with pytest.raises(ValueError, match="in \\[0, 5\\]"):
            target_distribution(bad)


def test_prediction_matches_a_hand_computed_example():
    head = TaiHead(2, 1)
    with torch.no_grad():
        head.product.weight[:] = torch.tensor([[1.0, 0.0]])
        head.difference.weight[:] = torch.tensor([[0.0, 2.0]])
        head.difference.bias[:] = torch.tensor([0.5])
        head.output.weight[:] = torch.tensor([[0.0], [1.0], [0.0], [0.0], [2.0], [0.0]])
        head.output.bias[:] = 0
    v1, v2 = np.array([[1.0, 2.0]], dtype=np.float32), np.array([[3.0, 1.5]], dtype=np.float32)
    # h× = (3, 3), h+ = (2, 0.5); h = tanh(1·3 + 2·0.5 + 0.5) = tanh(4.5)
    h = math.tanh(4.5)
    logits = np.array([0, h, 0, 0, 2 * h, 0])
    p = np.exp(logits) / np.exp(logits).sum()
    assert predict(head, v1, v2)[0] == pytest.approx(float(p @ np.arange(6)), abs=1e-6)


def test_the_loss_is_the_kl_divergence_plus_the_weight_penalty():
    head = TaiHead(3, 2)
    v = torch.randn(4, 3, generator=torch.Generator().manual_seed(0))
    target = torch.from_numpy(target_distribution([0.5, 2.0, 3.3, 5.0]))
    log_p = head(v, v.flip(0))
    kl = (target * (torch.log(target.clamp_min(1e-30)) - log_p)).sum(1).mean()
    penalty = sum((w**2).sum() for w in head.weights())
    assert head_loss(log_p, target, head.weights(), 0.1).item() == pytest.approx((kl + 0.1 * penalty).item(), rel=1e-5)


def toy_sets(seed=0, sets=3, rows=40, dim=6):
    """Pairs whose gold rises with the cosine of their vectors: learnable."""
    rng = np.random.default_rng(seed)
    out = []
    for index in range(sets):
        v1 = rng.normal(size=(rows, dim)).astype(np.float32)
        noise = rng.normal(size=(rows, dim)).astype(np.float32)
        mix = rng.uniform(0, 1, size=(rows, 1)).astype(np.float32)
        v2 = (mix * v1 + (1 - mix) * noise).astype(np.float32)
        gold = np.clip(5 * mix[:, 0] + rng.normal(scale=0.2, size=rows), 0, 5)
        gold[::7] = np.nan  # unscored lines
        out.append(PairVectors(f"2015/set{index}", v1, v2, gold, np.arange(1, rows + 1)))
    return out


@pytest.mark.training
def test_training_lowers_the_loss_learns_the_scores_and_repeats_exactly():
    train = stack(toy_sets())
    head, records = fit(train, SETTINGS)
    assert records[-1]["loss"] < records[0]["loss"]
    assert np.corrcoef(predict(head, train.v1, train.v2), train.gold)[0, 1] > 0.8
    again, _ = fit(train, SETTINGS)
    np.testing.assert_array_equal(predict(head, train.v1, train.v2), predict(again, train.v1, train.v2))


def test_no_scored_pair_is_refused():
    empty = PairVectors(
        "2015/x", np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32), np.array([np.nan, np.nan])
    )
    with pytest.raises(ValueError, match="no scored pairs"):
        stack([empty])


def test_dev_search_chooses_the_best_validation_row_and_the_fit_uses_it(tmp_path):
    train, validate = toy_sets(0), toy_sets(1, sets=2)
    points = [{**SETTINGS, "hidden": 4, "epochs": 3}, {**SETTINGS, "hidden": 8, "epochs": 3}]
    table = dev_search(train, validate, points, choose_epochs=True)
    heads = table[table["method"] == "head"]
    assert len(heads) == 6 and table["chosen"].sum() == 1
    chosen = table[table["chosen"]].iloc[0]
    assert chosen["dev_ALL"] == heads["dev_ALL"].max()
    assert {"dev_2015_set0", "dev_2015_set1", "train_ALL"} <= set(table.columns)
    cosine = table[table["method"] == "cosine"].iloc[0]
    assert not cosine["chosen"] and cosine["dev_ALL"] > 0.3
    settings = chosen_settings(table, points)
    assert settings["epochs"] == chosen["epoch"] and settings["hidden"] == chosen["hidden"]
    # a preset: nothing is chosen, its last epoch stands
    fixed = dev_search(train, validate, [points[0]], choose_epochs=False)
    assert fixed[fixed["chosen"]]["epoch"].iat[0] == 3
    head = final_fit(train, settings)
    predictions, cosines = predict_test_sets(head, validate)
    assert list(predictions.columns) == ["year", "dataset", "line", "prediction"]
    assert len(predictions) == 80 and predictions["prediction"].between(0, 5).all()
    assert list(cosines["dataset"]) == ["2015/set0", "2015/set1", "ALL"]
    save(head, tmp_path / "head.safetensors", {"settings": settings, "vectors": ["a"]})
    loaded, metadata = load(tmp_path / "head.safetensors")
    assert metadata["vectors"] == ["a"]
    np.testing.assert_array_equal(
        predict(loaded, validate[0].v1, validate[0].v2), predictions["prediction"].to_numpy()[:40]
    )
    with pytest.raises(ValueError, match="marks 0 rows as chosen"):
        chosen_settings(table.assign(chosen=False), points)

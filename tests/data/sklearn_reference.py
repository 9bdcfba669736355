#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Recomputes the scikit-learn reference values that tests/model/tst_kmeans_real_data.cpp records,
# so scikit-learn is not needed at test time. Run from the repository root:
#   python3 tests/data/sklearn_reference.py      (Debian: apt-get install python3-sklearn)
# KernelLab reads the points as float32, so the reference clusters the float32-rounded values
# (in double, as scikit-learn does for float64 input): the exact answer for the data that ran.
import numpy as np
import sklearn
from sklearn.cluster import KMeans

CASES = [
    ("iris.csv", "iris_centers_k3.csv"),
    ("breast_cancer.csv", "breast_cancer_centers_k2.csv"),
]


def load(path):
    return np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2).astype(np.float32).astype(np.float64)


def score_rule(x, centers, epsilon, max_iter=300):
    """Campaign's rule (the seed): stop when |score - previous| <= epsilon * previous."""
    previous = None
    for it in range(max_iter):
        if it > 0:
            centers = np.array([x[labels == j].mean(0) if (labels == j).any() else centers[j]
                                for j in range(len(centers))])
        d = ((x[:, None, :] - centers[None]) ** 2).sum(2)
        labels = d.argmin(1)
        score = d[np.arange(len(x)), labels].sum()
        if it > 0 and abs(score - previous) <= epsilon * previous:
            return it + 1, score
        previous = score
    return max_iter, score


print("scikit-learn", sklearn.__version__)
for points, centers in CASES:
    x = load("tests/data/" + points)
    c = load("tests/data/" + centers)
    km = KMeans(n_clusters=len(c), init=c, n_init=1, algorithm="lloyd", tol=0, max_iter=300).fit(x)
    it, score = score_rule(x, c, 1e-4)
    print(f"{points}: N={len(x)} D={x.shape[1]} K={len(c)}")
    print(f"  converged: n_iter={km.n_iter_} inertia={km.inertia_:.17g} sizes={np.bincount(km.labels_).tolist()}")
    print(f"  labels={''.join(map(str, km.labels_))}")
    print(f"  score rule (epsilon 1e-4): iterations={it} score={score:.17g}")

"""The accuracy harness: kvdoctor's randomized lab generator and the scoring of its draws.

Measurement equipment, not product: it lives beside the package and is not in the wheel
(``pyproject.toml`` ships ``kvdoctor`` only). ``benchmarks/bench_accuracy.py`` drives it against
real lab servers; ``tests/unit/test_randomized.py`` and ``tests/unit/test_accuracy_scoring.py``
hold its logic. It imports kvdoctor (the lab, the metric table); kvdoctor never imports it.
"""

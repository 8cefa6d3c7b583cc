"""The cases of `test_behaviours.py`, one module per family of behaviour. pytest collects
them from `test_behaviours.py`, which imports each in order, so their node ids (the
names of golden transcripts and baseline entries) stay `test_behaviours.py::...`."""

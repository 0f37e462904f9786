"""The checks against others: the value-by-value comparison with the peer solver yatzy-solver
(``peer``), the figures of the APL article on Kniffel (``apl_article``) and the benchmark cases
(``bench_cases``)."""

"""The objectives beyond the expected score, one module or folder each: the score distribution
(``distribution``), the best chance to reach every score and best expected utilities
(``target``), the chance to beat the opponents' sheets (``winning``, ``winning_simulate``) and
two players both playing to win (``twoplayer``)."""

"""The score-sheet engine: the state tables (``tables``), the turn and the backward induction of
the expected score and the boxes met (``solver``), the one turn policy every answer follows
(``policy``), saved throws (``saved``), evaluation of a policy's channels (``evaluate``), the
solved tables of a process and of the solution store (``solutions``, ``table_io``)."""

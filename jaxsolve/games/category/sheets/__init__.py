"""The score sheets and their presets: a sheet of boxes as data (``sheet``), the rules value of
the family (``rules``), the names a player types (``names``), a position in the sheet's notation
(``position``), and one module per sheet with its presets and its registration (``kniffel``,
``yatzy``, ``maxi``, ``yacht``)."""

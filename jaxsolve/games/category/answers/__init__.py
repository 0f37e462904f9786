"""Answers to a player: ranked options at a position (``advisor``, ``query``), the per-box split
and spread (``analysis``), what the family's commands do (``commands``, ``family_commands``,
``table_commands``) and
a game at the table (``play``)."""

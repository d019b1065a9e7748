"""The club around the tables: members, the record of every finished game, points, levels, rooms, standings.

Built around the table, never inside the director (DESIGN "Beyond one table"): the journal is the source of
truth, and the club database (SQLite, its own file, schema versioned) is derived from finished games, exactly
once per game. Scoring, levels and room rules are pure functions of records and the club's configured tables
(V2.13), so they are tested like the rules. The hall reads the club through :mod:`controller.club.api`.
"""

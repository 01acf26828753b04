"""The table actor: one task per table runs its games (:mod:`.tables`) from the
inputs of :mod:`.effects` (which holds what it answers, too), with the table's
:mod:`.settings`; seats and their 托管 state (:mod:`.seats`), what people do at a table
(:mod:`.seating`), what a finished game changes (:mod:`.results`), the tables of the
server (:mod:`.lobby`).  It reaches clients only through
:class:`~.subscriber.Subscriber`: it knows no transport."""

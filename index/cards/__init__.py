"""The Oracle card store: MTGJSON AtomicCards files read as a stream into one sqlite snapshot.

* :mod:`index.cards.reader` reads a ``.json``, ``.json.gz``, ``.json.xz`` or ``.json.bz2`` file
  (recognised by its first bytes), one card entry at a time.
* :mod:`index.cards.store` builds and opens the snapshot under the data folder
  (:func:`~index.cards.store.import_cards`, :class:`~index.cards.store.CardStore`).
* :mod:`index.cards.lookup` finds a card the way a judge types its name.
* :mod:`index.cards.rules` finds the rules a card's keywords name in a CR edition.
* :mod:`index.cards.update` downloads MTGJSON's file and imports it, unless it is stored.

Nothing is imported here, so that ``judge card`` pays only for the modules it uses.
"""

"""Contacts between the pieces and with the tube walls (MS-3, MS-7, MS-8).

``core`` states the contact protocol (detector -> manifold -> response model) and the
shared bookkeeping; ``impulse`` is the response model; ``piece_piece`` and ``piece_wall``
hold what is particular to each interaction; ``resolve`` runs them after a substep.
"""

"""Proteus: Numba rules kernel (``kernel``), plain-Python reference (``reference``), batch
facade (``batch``), notation and position text (``notation``), AEC env (``env``; public module
``envs.proteus_v0``), drawing (``render``) and terminal play (``play``)."""

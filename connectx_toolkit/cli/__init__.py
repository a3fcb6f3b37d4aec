"""The command line: ``connectx`` (:mod:`main`) and one module per subcommand (:mod:`build_submission` is
``connectx build``, :mod:`match`, :mod:`league`, :mod:`gate`, :mod:`submit`, :mod:`ladder`, :mod:`board`,
:mod:`analyze`, :mod:`train`, :mod:`solve`), the option groups they share (:mod:`options`), and the old commands
routed onto them (:mod:`evaluate`: ``connectx-evaluate`` / ``evaluate.py``; ``connectx-build``,
``connectx-train``). The top floor of the package: the only one that reads argv, imports argparse or prints an
error line; everything below takes settings values and raises ``UsageError``.
"""

"""``micropython`` where there is one, else a stand-in whose decorators leave a function as it is (CPython runs
the node's code in some tools). MicroPython's compiler acts on ``@micropython.native`` by its spelling, so a module
writes ``from mpcompat import micropython`` and decorates as usual."""

try:
    import micropython
    from micropython import const
except ImportError:

    def const(value):
        return value

    class micropython:
        @staticmethod
        def native(fn):
            return fn

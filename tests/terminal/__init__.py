"""The terminal client: ``baohuang play`` and ``baohuang rules``."""

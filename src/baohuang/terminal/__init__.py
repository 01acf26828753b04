"""The terminal client (``baohuang play``): :mod:`.app` (the session and the command),
:mod:`.input` (reading answers), :mod:`.words` (questions and help), :mod:`.view`
(the table drawn from a seat's view) and :mod:`.text` (Chinese and English texts)."""

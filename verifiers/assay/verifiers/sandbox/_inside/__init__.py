"""Code that runs inside the sandbox (the zygote and its children).

Everything in this package uses the standard library only, because it is imported by a Python
that sees nothing of the host but its own prefix. The trusted side imports :mod:`.codec` and
:mod:`.framing` too, so both ends speak exactly the same wire format.
"""

"""Keys of the marker dicts that stand for non-data values in the *arguments* of requests.

Shared by the sandboxed child (:mod:`.child`) and the trusted stand-ins
(:mod:`assay.verifiers.code.remote`); the NUL prefix keeps them apart from ordinary keys.
They travel only from the trusted side into the sandbox. What comes back the other way uses
the codec's own tags (:class:`.codec.Handle`, :class:`.codec.ExceptionClass`), so a plain
dict the candidate returns can never turn into a handle on the trusted side.
"""

HANDLE_KEY = "\x00h"  # a candidate object kept in the sandbox, by its random token (bytes)
FUNCTION_KEY = "\x00f"  # a plain trusted test function, as marshalled code
BUILTIN_KEY = "\x00b"  # a builtin callable, by qualified name ("str.lower")
ITERATOR_KEY = "\x00i"  # a trusted iterator, drained into a list

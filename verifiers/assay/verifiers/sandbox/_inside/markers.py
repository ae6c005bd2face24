"""Keys of the marker dicts that stand for non-data values in handle requests.

Shared by the sandboxed child (:mod:`.child`) and the trusted stand-ins
(:mod:`assay.verifiers.code.remote`); the NUL prefix keeps them apart from ordinary keys.
"""

HANDLE_KEY = "\x00h"  # a candidate object kept in the sandbox, by number
TYPE_KEY = "\x00t"  # its type's name, next to HANDLE_KEY
EXCEPTION_KEY = "\x00e"  # a candidate exception class: [name, builtin bases...]
FUNCTION_KEY = "\x00f"  # a plain trusted test function, as marshalled code
BUILTIN_KEY = "\x00b"  # a builtin callable, by qualified name ("str.lower")
ITERATOR_KEY = "\x00i"  # a trusted iterator, drained into a list

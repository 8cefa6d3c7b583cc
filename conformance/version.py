"""The suite's version, as installed: what it names itself on the wire and in its reports."""

from importlib.metadata import version

VERSION = version("elicit-conformance")

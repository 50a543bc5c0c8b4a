"""What a page shows of RDF terms: a term (its text, link, label, datatype), and a fact."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Term:
    """A term as a page shows it: text, where it links, and what kind of value it is."""

    text: str
    href: str | None = None
    label: str | None = None
    datatype: str | None = None
    language: str | None = None
    paste: str | None = None  # an IRI as a query takes it back (namespaces.pasteable)
    iri: str | None = None


@dataclass
class Fact:
    predicate: Term
    value: Term
    derived: bool = False

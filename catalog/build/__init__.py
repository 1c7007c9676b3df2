"""``catalog build``: extract -> compare -> analyze -> store -> activate one versioned,
incremental build of a dbt project.

- :mod:`catalog.build.builder`: the run, stage by stage (:class:`Builder`);
- :mod:`catalog.build.inputs`: what is read before parsing (the manifest's head, compiled files);
- :mod:`catalog.build.fingerprints`: the hashes that decide what is reused;
- :mod:`catalog.build.rows`: records as the rows the ``write/*`` queries take;
- :mod:`catalog.build.writer`: the lineage written as the difference from the active build;
- :mod:`catalog.build.summary`: what a build did.

The versioning rule every write follows is in :mod:`catalog.store.versioned`.
"""

from catalog.build.builder import STORE_VERSION, Builder
from catalog.build.fingerprints import ANALYZER_VERSION, Fingerprint, fingerprints
from catalog.build.summary import BuildSummary

__all__ = ["ANALYZER_VERSION", "STORE_VERSION", "BuildSummary", "Builder", "Fingerprint", "fingerprints"]

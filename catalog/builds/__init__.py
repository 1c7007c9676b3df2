"""``catalog build``: extract -> compare -> analyze -> store -> activate one versioned,
incremental build of a dbt project.

- :mod:`catalog.builds.builder`: the run, stage by stage (:class:`Builder`);
- :mod:`catalog.builds.inputs`: what is read before parsing (the manifest's head, compiled files);
- :mod:`catalog.builds.fingerprints`: the hashes that decide what is reused;
- :mod:`catalog.builds.rows`: records as the rows the ``write/*`` queries take;
- :mod:`catalog.builds.writer`: the lineage written as the difference from the active build;
- :mod:`catalog.builds.summary`: what a build did.

The versioning rule every write follows is in :mod:`catalog.store.versioned`.
"""

from catalog.builds.builder import STORE_VERSION, Builder
from catalog.builds.fingerprints import ANALYZER_VERSION, Fingerprint, fingerprints
from catalog.builds.summary import BuildSummary

__all__ = ["ANALYZER_VERSION", "STORE_VERSION", "BuildSummary", "Builder", "Fingerprint", "fingerprints"]

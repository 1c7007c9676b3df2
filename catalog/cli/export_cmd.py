"""``catalog export [PATH] --format openlineage``: the lineage as OpenLineage run events, from a dbt
target (no Neo4j) or from a build stored in Neo4j."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from catalog.cli.common import AtOpt, BuildOpt, DialectOpt, JobsOpt, ProjectOpt, Verbatim, build_ref, emit, handle_errors, say
from catalog.cli.connect import NEO4J, Neo4jOptions, neo4j_options
from catalog.cli.inputs import OptionalProjectPath, read_input
from catalog.errors import CatalogError
from catalog.export.openlineage_http import DEFAULT_ENDPOINT, send_events


class ExportFormat(str, Enum):
    OPENLINEAGE = "openlineage"


FormatOpt = Annotated[ExportFormat, typer.Option("--format", "-f", help="The export format.")]
OutputOpt = Annotated[
    Path | None,
    typer.Option("--output", "-o", dir_okay=False, help="Write the events to this file (default: stdout)."),
]
UrlOpt = Annotated[
    str | None,
    typer.Option(
        "--url",
        help="Send the events to this OpenLineage server (for example http://localhost:5000 for Marquez) "
        "through the official client (extra `openlineage`) instead of printing them.",
    ),
]
EndpointOpt = Annotated[str, typer.Option("--endpoint", help="The path under --url that receives events.")]
ApiKeyOpt = Annotated[
    str | None,
    typer.Option("--api-key", envvar="OPENLINEAGE_API_KEY", help="Bearer token for --url.", show_default=False),
]
NamespaceOpt = Annotated[
    str | None, typer.Option("--namespace", help="The jobs' namespace (default: the dbt project's name).")
]
DatasetNamespaceOpt = Annotated[
    str | None,
    typer.Option(
        "--dataset-namespace",
        help="The datasets' namespace, e.g. snowflake://myorg-myaccount or postgres://db.example.com:5432 "
        "(default: from the adapter type, see --help).",
    ),
]


@handle_errors
@neo4j_options(whole_build=True)
def export(
    path: OptionalProjectPath = None,
    fmt: FormatOpt = ExportFormat.OPENLINEAGE,
    output: OutputOpt = None,
    url: UrlOpt = None,
    endpoint: EndpointOpt = DEFAULT_ENDPOINT,
    api_key: ApiKeyOpt = None,
    namespace: NamespaceOpt = None,
    dataset_namespace: DatasetNamespaceOpt = None,
    dialect: DialectOpt = None,
    jobs: JobsOpt = None,
    project: ProjectOpt = None,
    build: BuildOpt = None,
    at: AtOpt = None,
    neo4j: Neo4jOptions = NEO4J,
) -> None:
    """Export a dbt project's column lineage as OpenLineage run events (newline-delimited JSON).

    With PATH, runs the same analysis as `catalog lineage` (no Neo4j); without PATH, reads a
    build stored in Neo4j (the active one, or --build) and gives the same events as the
    artifacts it was built from. Emits one COMPLETE run event per
    model and snapshot: its input datasets and its output dataset with the `schema` and
    `columnLineage` facets (DIRECT IDENTITY / TRANSFORMATION / AGGREGATION per column,
    INDIRECT JOIN / FILTER / GROUP_BY / SORT / WINDOW for the columns used in conditions).
    Ephemeral models are no dataset: their lineage is folded into the models that read them.

    The output is the same for the same artifacts: eventTime is the manifest's generated_at
    and the run id a UUID derived from the job namespace, the model and that time.

    Datasets are named database.schema.table in a namespace from the adapter type:
    `bigquery`; `duckdb://{database}.duckdb`; for other warehouses (snowflake, postgres,
    redshift, ...) the account or host is not in dbt's artifacts and the namespace is
    `{scheme}://unknown` unless --dataset-namespace gives it.

    Without --url nothing touches the network; with --url the events are POSTed to
    URL/api/v1/lineage (see --endpoint).
    """
    from catalog.export.openlineage import default_dataset_namespace, openlineage_events

    data = read_input(
        path, dialect=dialect, jobs=jobs, project=project, build=build_ref(build, at),
        neo4j=neo4j, consumers=False,
    )  # fmt: skip
    if dataset_namespace is None:
        dataset_namespace, missing = default_dataset_namespace(data)
        if missing:
            say(
                f"datasets in namespace {dataset_namespace}: the {missing} is not in dbt's artifacts; "
                "set it with --dataset-namespace"
            )
    events = openlineage_events(data, job_namespace=namespace, dataset_namespace=dataset_namespace)
    lines = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events)
    if output is not None:
        try:
            output.write_text(lines, encoding="utf-8")
        except OSError as e:
            raise CatalogError(f"{output}: {e.strerror or e}") from None
        say(f"{len(events)} OpenLineage events written to {output}")
    if url is not None:
        sent = send_events(events, url, endpoint=endpoint, api_key=api_key)
        say(f"{sent} OpenLineage events sent to {url}")
    if output is None and url is None:
        emit("events", events=lambda: Verbatim(lines))

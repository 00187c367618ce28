"""The recorded order of rated matches (Match.rated_seq, RatedSequence) and the fitted Elo's stored statistics
(FitStatistics): the incremental refit (league/ratings/fits.py). Existing rated matches are numbered in the order
they finished (ties by id), as they would have been recorded."""

from django.db import migrations, models
from django.db.models import Q

BATCH = 5000


def number_rated_matches(apps, schema_editor):  # type: ignore[no-untyped-def]
    Match = apps.get_model("league", "Match")
    RatedSequence = apps.get_model("league", "RatedSequence")
    rated = Q(kind__in=["ladder", "placement"]) | Q(kind="tournament", round__tournament__rated=True)
    finished = Match.objects.filter(rated, status="finished")
    for game in finished.values_list("game", flat=True).distinct().order_by():
        ids = list(finished.filter(game=game).order_by("finished_at", "id").values_list("id", flat=True))
        for start in range(0, len(ids), BATCH):
            batch = [Match(pk=pk, rated_seq=start + n + 1) for n, pk in enumerate(ids[start : start + BATCH])]
            Match.objects.bulk_update(batch, ["rated_seq"])
        RatedSequence.objects.create(game=game, last=len(ids))


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0010_live_matches"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="rated_seq",
            field=models.BigIntegerField(blank=True, editable=False, null=True),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(fields=["game", "rated_seq"], name="match_game_rated_seq"),
        ),
        migrations.CreateModel(
            name="RatedSequence",
            fields=[
                ("game", models.CharField(max_length=40, primary_key=True, serialize=False)),
                ("last", models.BigIntegerField(default=0)),
            ],
        ),
        migrations.CreateModel(
            name="FitStatistics",
            fields=[
                ("game", models.CharField(max_length=40, primary_key=True, serialize=False)),
                ("last_seq", models.BigIntegerField(default=0)),
                ("matches", models.PositiveIntegerField(default=0)),
                ("last_match_id", models.BigIntegerField(default=0)),
                ("seat_results", models.JSONField(blank=True, default=dict)),
                ("data", models.BinaryField(editable=False)),
                ("pending", models.BinaryField(editable=False, null=True)),
                ("base_seq", models.BigIntegerField(default=0)),
                ("rest", models.BinaryField(editable=False, null=True)),
            ],
            options={"verbose_name_plural": "fit statistics"},
        ),
        migrations.RunPython(number_rated_matches, migrations.RunPython.noop),
    ]

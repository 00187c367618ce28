"""The lease fields of matches, versions and tables come from one abstract model (league/core/lease_models.py): the same
columns, so no schema change; only a match's ``attempts`` is no longer editable in forms, as the others' never was
(the admin shows it read-only)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0014_table_queue"),
    ]

    operations = [
        migrations.AlterField(
            model_name="match",
            name="attempts",
            field=models.PositiveSmallIntegerField(default=0, editable=False),
        ),
    ]

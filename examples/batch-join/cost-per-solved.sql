SELECT generator_model, sum(tasks) AS tasks, sum(solved) AS solved,
       sum(cost) AS usd,
       sum(cost) / nullif(sum(solved), 0) AS usd_per_solved_task
FROM analyst_cost_per_solved WHERE currency = 'USD'
GROUP BY generator_model ORDER BY generator_model;
